package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// Job is one attempt at a service or script task's work, as a handler sees it.
type Job struct {
	// Key identifies the attempt (instance, element, attempt): pass it on to
	// other systems as an idempotency key, since work runs at least once.
	Key           string
	InstanceID    string
	DefinitionKey string
	ElementID     string
	Type          string
	Attempt       int
	// Variables are the instance's variables with the activity's inputs on
	// top. Read only: the map may be shared with the engine; copy it to change it.
	Variables  map[string]any
	Parameters map[string]any // the task's parameters rendered: ${...} templates, and in a JSON DAG {{ }} ones
	Headers    map[string]string
	// RetryOnStatus is the task's RetryPolicy.RetryOnStatus: the HTTP
	// statuses a handler calling HTTP retries (see StatusFailure).
	RetryOnStatus []int

	eng *Engine // for ReportProgress; nil for a job no engine runs
	run *jobRun
}

// Handler does the work of service tasks of one type. The returned variables
// become the task's result. A long job tells how far it is with
// Job.ReportProgress. An error fails the attempt: it is retried by the
// task's retry policy unless it is Permanent; a ThrowError is a BPMN error
// for boundary events to catch.
type Handler interface {
	Handle(ctx context.Context, job *Job) (map[string]any, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job *Job) (map[string]any, error)

func (f HandlerFunc) Handle(ctx context.Context, job *Job) (map[string]any, error) {
	return f(ctx, job)
}

// BPMNError is a business error thrown by a handler or an error end event.
type BPMNError struct {
	Code    string
	Message string
	// Variables are set when the error is thrown, for whatever catches it
	// (a validation step's violations, say).
	Variables map[string]any
}

func (e *BPMNError) Error() string { return fmt.Sprintf("BPMN error %q: %s", e.Code, e.Message) }

// ThrowError returns an error that throws a BPMN error with code from the
// task, to be caught by an error boundary event.
func ThrowError(code, message string) error { return &BPMNError{Code: code, Message: message} }

var errPermanent = errors.New("permanent failure")

// Permanent marks err as not worth retrying: the task gets an incident at once.
func Permanent(err error) error { return fmt.Errorf("%w: %w", errPermanent, err) }

// retryAfter asks for the next attempt after a given delay.
type retryAfter struct {
	after time.Duration
	err   error
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

// RetryAfter fails the attempt and asks for the next one after d (retries permitting).
func RetryAfter(d time.Duration, err error) error { return &retryAfter{after: d, err: err} }

// CodedError carries an error code that RetryPolicy.RetryOn can name.
type CodedError struct {
	Code string
	Err  error
}

func (e *CodedError) Error() string { return e.Code + ": " + e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

func errorCode(err error) string {
	var ce *CodedError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// handlerRegistry maps job types to handlers.
type handlerRegistry struct {
	mu sync.RWMutex
	m  map[string]Handler
}

func newHandlerRegistry() *handlerRegistry { return &handlerRegistry{m: map[string]Handler{}} }

// RegisterHandler makes h do the work of every service task of type typ.
// Register before Run, or before instances reach such tasks.
func (e *Engine) RegisterHandler(typ string, h Handler) {
	e.handlers.mu.Lock()
	defer e.handlers.mu.Unlock()
	e.handlers.m[typ] = h
}

// HandlerTypes lists the job types handlers are registered for, sorted; a
// job of any other type waits for an external worker.
func (e *Engine) HandlerTypes() []string {
	e.handlers.mu.RLock()
	defer e.handlers.mu.RUnlock()
	return slices.Sorted(maps.Keys(e.handlers.m))
}

func (r *handlerRegistry) get(typ string) Handler {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m[typ]
}

// has reports whether the engine runs n's work itself.
func (r *handlerRegistry) has(n *model.Node) bool {
	return n.Kind == model.KindScriptTask || r.get(n.Job.Type) != nil
}

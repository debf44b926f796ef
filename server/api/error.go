package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/tasks"
)

// CorrelationHeader carries the id that ties a request to its logs.
const CorrelationHeader = "X-Correlation-ID"

const localCorrelation = "correlationId"

// Error is an API error with its HTTP status. Handlers return it (or any
// engine error) and HandleError writes the envelope.
type Error struct {
	Status  int
	Code    string
	Message string
	Details any
}

func (e *Error) Error() string { return e.Message }

// Envelope is the body of every error response.
type Envelope struct {
	Error EnvelopeError `json:"error"`
}

// EnvelopeError is the inside of an Envelope.
type EnvelopeError struct {
	Code          string    `json:"code"`
	Message       string    `json:"message"`
	Details       any       `json:"details,omitempty"`
	CorrelationID string    `json:"correlationId"`
	Timestamp     time.Time `json:"timestamp"`
}

// Forbidden is a 403 with msg.
func Forbidden(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "forbidden", Message: msg}
}

// BadRequest is a 400 invalid_input with a formatted message.
func BadRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_input", Message: sprintf(format, args...)}
}

// Correlate takes the caller's correlation id, or makes one, and echoes it.
func Correlate(c *fiber.Ctx) error {
	id := CorrelationID(c)
	c.Set(CorrelationHeader, id)
	return c.Next()
}

// CorrelationID is the id of request c: the caller's, or one made for it.
func CorrelationID(c *fiber.Ctx) string {
	if id, ok := c.Locals(localCorrelation).(string); ok {
		return id
	}
	id := c.Get(CorrelationHeader)
	if id == "" || len(id) > 128 {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Locals(localCorrelation, id)
	return id
}

// HandleError is the app's error handler: it writes err as the envelope,
// with the status Classify gives it.
func HandleError(c *fiber.Ctx, err error) error {
	// Not logged here: observe logs every request once, with its error.
	e := Classify(err)
	id := CorrelationID(c)
	c.Set(CorrelationHeader, id)
	if over := (*engine.OverLimitError)(nil); errors.As(err, &over) {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retryAfterSeconds(over.RetryAfter)))
	}
	if notOwner := (*engine.NotOwnerError)(nil); errors.As(err, &notOwner) || errors.Is(err, engine.ErrFenced) {
		c.Set(fiber.HeaderRetryAfter, "1") // a partition changes hands within a lease renewal
	}
	return c.Status(e.Status).JSON(Envelope{Error: EnvelopeError{
		Code: e.Code, Message: e.Message, Details: e.Details, CorrelationID: id, Timestamp: time.Now().UTC(),
	}})
}

// Classify maps an error to its status, code and message.
func Classify(err error) *Error {
	var (
		apiErr   *Error
		fiberErr *fiber.Error
		probs    model.Problems
		syntax   *bpmn.SyntaxError
		taskErr  *tasks.Error
		idErr    *identity.Error
		tooLarge *engine.VariableTooLargeError
		over     *engine.OverLimitError
		rejected *engine.WebhookRejectedError
		field    *engine.FieldError
		notOwner *engine.NotOwnerError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &apiErr):
		return apiErr
	case errors.As(err, &idErr):
		return &Error{Status: idErr.Status, Code: idErr.Code, Message: idErr.Message}
	case errors.As(err, &taskErr):
		return &Error{Status: taskErr.Status, Code: taskErr.Code, Message: taskErr.Message, Details: taskErr.Details}
	case errors.As(err, &fiberErr):
		return &Error{Status: fiberErr.Code, Code: codeOf(fiberErr.Code), Message: fiberMessage(fiberErr)}
	case errors.As(err, &probs):
		details := make([]model.Problem, len(probs))
		copy(details, probs)
		return &Error{Status: http.StatusUnprocessableEntity, Code: "invalid_definition", Message: msg, Details: details}
	case errors.As(err, &field):
		return &Error{
			Status: http.StatusBadRequest, Code: "invalid_input", Message: msg,
			Details: []map[string]string{{"field": field.Field, "message": field.Message}},
		}
	case errors.Is(err, engine.ErrReadOnly):
		return &Error{Status: http.StatusConflict, Code: "read_only", Message: msg}
	case errors.As(err, &over):
		return &Error{
			Status: http.StatusTooManyRequests, Code: "over_limit", Message: msg,
			Details: []map[string]any{{"definition": over.Definition, "maxConcurrentInstances": over.Max, "retryAfterSeconds": retryAfterSeconds(over.RetryAfter)}},
		}
	case errors.As(err, &notOwner):
		// The server forwards a command to its partition's owner; what is
		// left here is a partition without an owner, or moving.
		return &Error{
			Status: http.StatusServiceUnavailable, Code: "partition_moving", Message: msg,
			Details: []map[string]any{{"partition": notOwner.Partition, "owner": notOwner.Owner}},
		}
	case errors.Is(err, engine.ErrFenced):
		// Another replica took the partition over as the change was
		// written, and refused it: its new owner takes the request now.
		return &Error{Status: http.StatusServiceUnavailable, Code: "partition_moving", Message: msg + ": try again"}
	case errors.As(err, &rejected):
		return &Error{
			Status: http.StatusUnprocessableEntity, Code: "webhook_rejected", Message: msg,
			Details: []map[string]any{{"elementId": rejected.ElementID, "filter": rejected.Filter}},
		}
	case errors.As(err, &tooLarge):
		return &Error{
			Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large", Message: msg,
			Details: []map[string]any{{"variable": tooLarge.Variable, "bytes": tooLarge.Bytes, "limit": tooLarge.Limit, "instanceTotal": tooLarge.Instance}},
		}
	case errors.Is(err, bpmn.ErrTooLarge):
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large", Message: msg}
	case errors.As(err, &syntax):
		return &Error{
			Status: http.StatusUnprocessableEntity, Code: "invalid_definition", Message: msg,
			Details: []map[string]any{{"elementId": "", "message": msg, "line": syntax.Line, "column": syntax.Column}},
		}
	case errors.Is(err, engine.ErrDeadLetterSettled):
		return &Error{Status: http.StatusConflict, Code: "dead_letter_settled", Message: msg}
	case errors.Is(err, engine.ErrDeadLetterOpen):
		return &Error{Status: http.StatusConflict, Code: "dead_letter_open", Message: msg}
	case errors.Is(err, engine.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Code: "not_found", Message: msg}
	case errors.Is(err, engine.ErrInvalidInput):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_input", Message: msg}
	case errors.Is(err, engine.ErrTaskNotOpen):
		return &Error{Status: http.StatusConflict, Code: "task_not_open", Message: msg}
	case errors.Is(err, engine.ErrDuplicate):
		return &Error{Status: http.StatusConflict, Code: "duplicate", Message: msg}
	case errors.Is(err, engine.ErrConflict):
		return &Error{Status: http.StatusConflict, Code: "conflict", Message: msg}
	case errors.Is(err, engine.ErrInstancePaused): // a webhook post to a paused instance: its filter cannot wait
		return &Error{Status: http.StatusConflict, Code: "instance_paused", Message: msg}
	case errors.Is(err, engine.ErrInstanceEnded):
		return &Error{Status: http.StatusConflict, Code: "instance_ended", Message: msg}
	case errors.Is(err, engine.ErrInvalidState):
		return &Error{Status: http.StatusConflict, Code: "invalid_state", Message: msg}
	case errors.Is(err, engine.ErrVersionTransition):
		return &Error{Status: http.StatusConflict, Code: "invalid_transition", Message: msg}
	case errors.Is(err, engine.ErrNotStartable):
		return &Error{Status: http.StatusConflict, Code: "version_not_startable", Message: msg}
	case errors.Is(err, engine.ErrNoDefaultVersion):
		return &Error{Status: http.StatusConflict, Code: "no_default_version", Message: msg}
	case errors.Is(err, engine.ErrDisabled):
		return &Error{Status: http.StatusConflict, Code: "definition_disabled", Message: msg}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, engine.ErrClosed), errors.Is(err, engine.ErrNotRunning), errors.Is(err, engine.ErrUnavailable):
		return &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: msg + ": try again later"}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Message: "internal error: see the server log under the correlation id"}
}

// retryAfterSeconds is d in whole seconds, at least one (HTTP Retry-After).
func retryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

func fiberMessage(e *fiber.Error) string {
	if e.Code == http.StatusRequestEntityTooLarge {
		return "request body is larger than the server's limit: send a smaller body"
	}
	return e.Message
}

func codeOf(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_input"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusConflict:
		return "conflict"
	case http.StatusRequestEntityTooLarge:
		return "payload_too_large"
	case http.StatusUnsupportedMediaType:
		return "unsupported_media_type"
	case http.StatusServiceUnavailable:
		return "unavailable"
	}
	if status >= 500 {
		return "internal"
	}
	return "error"
}

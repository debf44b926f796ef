package engine

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/script"
)

// Defaults for Config.
const (
	PartitionsDefault     = 0 // 0: GOMAXPROCS
	InboxSizeDefault      = 8192
	NodeQueueSizeDefault  = 4096
	NodeWorkersDefault    = 0 // 0: GOMAXPROCS
	JobTimeoutDefault     = 30 * time.Second
	MaxStepsDefault       = 100_000
	MaxBatchDefault       = 256
	JobLockTimeoutDefault = 5 * time.Minute

	MaxVariableBytesDefault         = 1 << 20 // one variable, as JSON
	MaxInstanceVariableBytesDefault = 4 << 20 // all of an instance's variables, as JSON
)

// UnhandledJobs says what happens to a service task whose type has no handler.
type UnhandledJobs uint8

const (
	JobsExternal UnhandledJobs = iota // wait for an external worker to fetch and complete it
	JobsNoop                          // complete it at once with no output (wfpp run's default)
)

// Config configures an Engine. The zero value of each field means its default.
type Config struct {
	Store       Store // required
	Clock       Clock
	Logger      *slog.Logger
	Exporter    Exporter
	Script      script.Config
	Partitions  int
	InboxSize   int
	NodeQueue   int // capacity of each node's ring
	NodeWorkers int // workers per node
	JobTimeout  time.Duration
	MaxSteps    int // token moves one command may make before it is an incident (a loop without wait state)
	// MaxCallDepth bounds how deeply call activities nest (default
	// MaxCallDepthDefault); deeper, the call activity raises an incident.
	MaxCallDepth int
	// MaxChainDepth bounds how long a chain of instances started by
	// triggers grows (default MaxChainDepthDefault); beyond it the start
	// is not made and the ended instance's history says so (chain.refused).
	MaxChainDepth int
	MaxBatch      int // commands an applier applies before it commits
	Unhandled     UnhandledJobs
	// MaxVariableBytes caps one variable a caller sets (start, task
	// completion, message, job result, resolve, set variables), measured as
	// JSON; MaxInstanceVariableBytes caps all of an instance's variables
	// after such a command. Beyond them the command is refused with a
	// VariableTooLargeError and changes nothing.
	MaxVariableBytes         int
	MaxInstanceVariableBytes int
	// MessageBuffer is how many messages published with a TTL may wait for
	// a subscriber (Publish); default MessageBufferDefault.
	MessageBuffer int
	// BPMN limits what a BPMN document may hold (size, nesting, elements,
	// attributes, value length); zero fields are bpmn's defaults.
	BPMN bpmn.Options
	// NoStartTimers turns off the timer start events of deployed definitions
	// (wfpp run starts its one instance itself): they get no schedules, and
	// stored ones do not fire.
	NoStartTimers bool
	// Random returns a number in [0,1) for retry jitter; injected for tests.
	Random func() float64
	// Circuits keeps the circuit breakers of service tasks (circuit.go);
	// default in the process, on Clock. wfpp serve shares them through
	// Redis when WFPP_REDIS_URL is set (circuit.NewRedis, on the same clock).
	Circuits circuit.Store
	// StepCache keeps the results of service tasks with a cache policy
	// (step_cache.go); default the Store, when it keeps one (every store
	// in this module does). wfpp serve keeps it in Redis when
	// WFPP_REDIS_URL is set (cache.NewStepCache). Without one, such tasks
	// run uncached.
	StepCache StepCache
	// Cluster makes this engine one replica of several on one store
	// (lease.go): it applies only the partitions it leases. nil: it holds
	// every partition alone (wfpp run, wfpp serve on the embedded store).
	Cluster *ClusterConfig
	// Peers reaches the other replicas (with Cluster).
	Peers Peers
}

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	c.Clock = cmp.Or[Clock](c.Clock, RealClock{})
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Partitions = cmp.Or(c.Partitions, runtime.GOMAXPROCS(0))
	c.InboxSize = cmp.Or(c.InboxSize, InboxSizeDefault)
	c.NodeQueue = cmp.Or(c.NodeQueue, NodeQueueSizeDefault)
	c.NodeWorkers = cmp.Or(c.NodeWorkers, runtime.GOMAXPROCS(0))
	c.JobTimeout = cmp.Or(c.JobTimeout, JobTimeoutDefault)
	c.MaxSteps = cmp.Or(c.MaxSteps, MaxStepsDefault)
	c.MaxCallDepth = cmp.Or(c.MaxCallDepth, MaxCallDepthDefault)
	c.MaxChainDepth = cmp.Or(c.MaxChainDepth, MaxChainDepthDefault)
	c.MaxBatch = cmp.Or(c.MaxBatch, MaxBatchDefault)
	c.MessageBuffer = cmp.Or(c.MessageBuffer, MessageBufferDefault)
	c.MaxVariableBytes = cmp.Or(c.MaxVariableBytes, MaxVariableBytesDefault)
	c.MaxInstanceVariableBytes = cmp.Or(c.MaxInstanceVariableBytes, MaxInstanceVariableBytesDefault)
	if c.Random == nil {
		c.Random = defaultRandom
	}
	if c.Circuits == nil {
		c.Circuits = circuit.NewLocal(c.Clock)
	}
	if sc, ok := c.Store.(StepCache); ok && c.StepCache == nil {
		c.StepCache = sc
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("engine config: Store is required (memstore.New() for memory)"))
	}
	for name, v := range map[string]int{
		"Partitions": c.Partitions, "InboxSize": c.InboxSize, "NodeQueue": c.NodeQueue,
		"NodeWorkers": c.NodeWorkers, "MaxSteps": c.MaxSteps, "MaxBatch": c.MaxBatch,
		"MessageBuffer": c.MessageBuffer, "MaxVariableBytes": c.MaxVariableBytes, "MaxInstanceVariableBytes": c.MaxInstanceVariableBytes,
	} {
		if v < 1 {
			errs = append(errs, fmt.Errorf("engine config: %s must be at least 1, got %d", name, v))
		}
	}
	if c.JobTimeout <= 0 {
		errs = append(errs, fmt.Errorf("engine config: JobTimeout must be positive, got %s", c.JobTimeout))
	}
	return errors.Join(errs...)
}

package script

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// Defaults for Config fields left zero.
const (
	ConditionTimeoutDefault = 50 * time.Millisecond
	ScriptTimeoutDefault    = 5 * time.Second
	MaxCallStackSizeDefault = 1000
	MaxInputBytesDefault    = 1 << 20 // 1 MiB of variables per evaluation
	MaxOutputBytesDefault   = 1 << 20 // 1 MiB result
	MaxStringLenDefault     = 1 << 20 // characters, for input, output and string builders
	MaxDepthDefault         = 64      // nesting of objects/arrays in and out
	MaxMemoryDefault        = 64 << 20
)

// Config configures an Evaluator. The zero value means defaults.
type Config struct {
	// ConditionTimeout is the time budget of Eval, EvalBool and Template.
	ConditionTimeout time.Duration
	// ScriptTimeout is the time budget of RunScript.
	ScriptTimeout time.Duration
	// MaxCallStackSize caps JavaScript call depth (runaway recursion).
	MaxCallStackSize int
	// MaxInputBytes caps the approximate size of the variables copied into
	// one evaluation (only variables the program references count).
	MaxInputBytes int
	// MaxOutputBytes caps the approximate size of a result.
	MaxOutputBytes int
	// MaxStringLen caps string length (characters) in inputs, results and
	// String.prototype.repeat/padStart/padEnd and Array.prototype.join.
	MaxStringLen int
	// MaxDepth caps the nesting depth of input and output values.
	MaxDepth int
	// MaxMemory is how much the heap may grow while one evaluation runs
	// before it is stopped with ErrMemory (see memory.go for how it is
	// measured); default 64 MiB.
	MaxMemory int64
	// PoolSize is how many idle runtimes are kept; default GOMAXPROCS.
	PoolSize int
	// Logger receives console.log output of scripts at debug level;
	// default discards.
	Logger *slog.Logger
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.ConditionTimeout = cmp.Or(c.ConditionTimeout, ConditionTimeoutDefault)
	c.ScriptTimeout = cmp.Or(c.ScriptTimeout, ScriptTimeoutDefault)
	c.MaxCallStackSize = cmp.Or(c.MaxCallStackSize, MaxCallStackSizeDefault)
	c.MaxInputBytes = cmp.Or(c.MaxInputBytes, MaxInputBytesDefault)
	c.MaxOutputBytes = cmp.Or(c.MaxOutputBytes, MaxOutputBytesDefault)
	c.MaxStringLen = cmp.Or(c.MaxStringLen, MaxStringLenDefault)
	c.MaxDepth = cmp.Or(c.MaxDepth, MaxDepthDefault)
	c.MaxMemory = cmp.Or(c.MaxMemory, MaxMemoryDefault)
	c.PoolSize = cmp.Or(c.PoolSize, runtime.GOMAXPROCS(0))
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	positive := func(name string, v int64) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("script config: %s must be positive, got %d", name, v))
		}
	}
	positive("ConditionTimeout", int64(c.ConditionTimeout))
	positive("ScriptTimeout", int64(c.ScriptTimeout))
	positive("MaxCallStackSize", int64(c.MaxCallStackSize))
	positive("MaxInputBytes", int64(c.MaxInputBytes))
	positive("MaxOutputBytes", int64(c.MaxOutputBytes))
	positive("MaxStringLen", int64(c.MaxStringLen))
	positive("MaxDepth", int64(c.MaxDepth))
	positive("MaxMemory", c.MaxMemory)
	positive("PoolSize", int64(c.PoolSize))
	return errors.Join(errs...)
}

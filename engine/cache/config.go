package cache

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/workflowpp/wfpp/engine"
)

// Defaults for Config.
const (
	PrefixDefault        = "wfpp:"
	OpTimeoutDefault     = 100 * time.Millisecond
	InstanceTTLDefault   = 3 * time.Second
	DefinitionTTLDefault = 10 * time.Minute
	LatestTTLDefault     = 2 * time.Second
	ProbeIntervalDefault = 500 * time.Millisecond
	LogIntervalDefault   = time.Minute
	PublishQueueDefault  = 4096
	PublishLingerDefault = 10 * time.Millisecond
	PendingMaxDefault    = 100_000
)

// Config configures a Cache. The zero value of each field means its default.
type Config struct {
	URL           string // redis://[user:password@]host:port/db; required
	Prefix        string // of every key and of the events channel
	Logger        *slog.Logger
	Clock         engine.Clock  // stamps entries; the probe runs on real time
	OpTimeout     time.Duration // of each Redis call
	InstanceTTL   time.Duration // how stale an instance read may be
	DefinitionTTL time.Duration // definitions are immutable but for Enabled
	LatestTTL     time.Duration // the latest version of a key
	ProbeInterval time.Duration // how often Redis is pinged
	LogInterval   time.Duration // at most one failure log per interval
	PublishQueue  int           // event batches waiting to be published
	// PublishLinger is how long the publisher waits after an event batch
	// for more before it publishes them as one message; negative: it does
	// not wait. A PUBLISH costs a round trip and a wake-up on both sides:
	// under load one message then carries the batches of many commits, and
	// another replica's WebSocket clients get an event at most this late.
	PublishLinger time.Duration
	PendingMax    int    // invalidations kept while Redis is down; beyond, the prefix is cleared on recovery
	ReplicaID     string // names this process in published events
	// StaleInstanceReads serves every Instance read from the cache, also the
	// engine's; only for tests of the cache itself (see AllowStale).
	StaleInstanceReads bool
}

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	c.Prefix = cmp.Or(c.Prefix, PrefixDefault)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Clock = cmp.Or[engine.Clock](c.Clock, engine.RealClock{})
	c.OpTimeout = cmp.Or(c.OpTimeout, OpTimeoutDefault)
	c.InstanceTTL = cmp.Or(c.InstanceTTL, InstanceTTLDefault)
	c.DefinitionTTL = cmp.Or(c.DefinitionTTL, DefinitionTTLDefault)
	c.LatestTTL = cmp.Or(c.LatestTTL, LatestTTLDefault)
	c.ProbeInterval = cmp.Or(c.ProbeInterval, ProbeIntervalDefault)
	c.LogInterval = cmp.Or(c.LogInterval, LogIntervalDefault)
	c.PublishQueue = cmp.Or(c.PublishQueue, PublishQueueDefault)
	c.PublishLinger = cmp.Or(c.PublishLinger, PublishLingerDefault)
	c.PendingMax = cmp.Or(c.PendingMax, PendingMaxDefault)
	c.ReplicaID = cmp.Or(c.ReplicaID, uuid.NewString())
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.URL == "" {
		errs = append(errs, errors.New("cache config: URL is required, e.g. redis://localhost:6379/0"))
	}
	for name, d := range map[string]time.Duration{
		"OpTimeout": c.OpTimeout, "InstanceTTL": c.InstanceTTL, "DefinitionTTL": c.DefinitionTTL,
		"LatestTTL": c.LatestTTL, "ProbeInterval": c.ProbeInterval, "LogInterval": c.LogInterval,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("cache config: %s must be positive, got %s", name, d))
		}
	}
	if c.PublishQueue < 1 {
		errs = append(errs, fmt.Errorf("cache config: PublishQueue must be at least 1, got %d", c.PublishQueue))
	}
	if c.PendingMax < 1 {
		errs = append(errs, fmt.Errorf("cache config: PendingMax must be at least 1, got %d", c.PendingMax))
	}
	return errors.Join(errs...)
}

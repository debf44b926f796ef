package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/bpmn"
)

// DeadLetterPurgeEveryDefault is how often the purger looks for old letters.
const DeadLetterPurgeEveryDefault = time.Hour

// deadLetterPurgeTimeout bounds one purge, so a store that hangs cannot hold
// the purger past its next round.
const deadLetterPurgeTimeout = time.Minute

// DeadLetterPurgerConfig configures RunDeadLetterPurger.
type DeadLetterPurgerConfig struct {
	// Retention is how long a settled dead letter (replayed, discarded,
	// cancelled) is kept once settled; required.
	Retention time.Duration
	// Every is how often the purger runs. Default DeadLetterPurgeEveryDefault.
	Every time.Duration
}

// WithDefaults fills in what is left zero.
func (c DeadLetterPurgerConfig) WithDefaults() DeadLetterPurgerConfig {
	c.Every = cmp.Or(c.Every, DeadLetterPurgeEveryDefault)
	return c
}

func (c DeadLetterPurgerConfig) validate() error {
	var errs []error
	if c.Retention <= 0 {
		errs = append(errs, fmt.Errorf("dead letter purger: Retention must be positive, got %s", c.Retention))
	}
	if c.Every <= 0 {
		errs = append(errs, fmt.Errorf("dead letter purger: Every must be positive, got %s", c.Every))
	}
	return errors.Join(errs...)
}

// RunDeadLetterPurger deletes the settled dead letters older than
// cfg.Retention now and then every cfg.Every, on the engine's clock, until
// ctx ends. A failed round is logged and the next one tries again.
func (e *Engine) RunDeadLetterPurger(ctx context.Context, cfg DeadLetterPurgerConfig) error {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	for {
		rctx, cancel := context.WithTimeout(ctx, deadLetterPurgeTimeout)
		_, err := e.PurgeDeadLetters(rctx, cfg.Retention, DeadLetterFilter{}, false)
		cancel()
		if err != nil && ctx.Err() == nil {
			e.cfg.Logger.Warn("purging dead letters failed; the next round tries again", "error", err, "retry_in", cfg.Every.String())
		}
		next := make(chan struct{})
		t := e.clock.AfterFunc(cfg.Every, func() { close(next) })
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-next:
		}
	}
}

// ParseAge reads an age such as a dead letter retention: an ISO-8601
// duration of fixed length (P30D, PT12H) or a Go one (720h).
func ParseAge(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if strings.HasPrefix(s, "P") {
		d, err = bpmn.ParseDuration(s)
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("age %q: write it like P30D, PT12H or 720h: %w", s, ErrInvalidInput)
	}
	return d, nil
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/workflowpp/wfpp/engine"
)

// startDeadLetterPurger purges settled dead letters older than retention
// (WFPP_DEAD_LETTER_RETENTION: P30D, 720h) every hour; with no retention it
// does nothing and letters are kept until deleted. The returned func stops
// the purger and waits for it: call it before closing the engine.
func startDeadLetterPurger(ctx context.Context, eng *engine.Engine, retention string, log *slog.Logger) (stop func(), err error) {
	if retention == "" {
		return func() {}, nil
	}
	age, err := engine.ParseAge(retention)
	if err == nil && age <= 0 {
		err = fmt.Errorf("age %q must be positive: leave it unset to keep dead letters until deleted", retention)
	}
	if err != nil {
		return nil, fmt.Errorf("WFPP_DEAD_LETTER_RETENTION: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := eng.RunDeadLetterPurger(ctx, engine.DeadLetterPurgerConfig{Retention: age}); err != nil {
			log.Error("dead letter purger stopped", "error", err)
		}
	})
	log.Info("settled dead letters are purged once older than the retention", "retention", age.String())
	return func() { cancel(); wg.Wait() }, nil
}

package script

import (
	"cmp"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// setup returns an Evaluator with cfg (zero fields default). Time budgets
// default to a minute here: tests that are not about timing must not fail
// on a loaded machine under the race detector.
func setup(t testing.TB, cfg Config) *Evaluator {
	t.Helper()
	cfg.ConditionTimeout = cmp.Or(cfg.ConditionTimeout, time.Minute)
	cfg.ScriptTimeout = cmp.Or(cfg.ScriptTimeout, time.Minute)
	e, err := NewEvaluator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// slow returns a copy of p that always runs in goja (no fast path).
func slow(p *Program) *Program {
	q := *p
	q.fast = nil
	return &q
}

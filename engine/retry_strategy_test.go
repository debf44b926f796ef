package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// retryProcess is a service task of type "flaky" with the given wf:
// attributes, between a start and an end event.
func retryProcess(id, attrs string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="%s" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="work" wf:type="flaky" %s/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
  </process>
</definitions>`, id, attrs)
}

// TestRetryStrategies runs a job that always fails through each backoff on
// the virtual clock and checks the delays the engine waited between
// attempts: the job.retrying events' delays and the clock's moves agree.
func TestRetryStrategies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		attrs  string
		random float64 // what the engine's randomness gives (0.5: jitter adds nothing)
		delays []time.Duration
	}{
		{
			"exponential with factor 3", `wf:retries="4" wf:retryDelay="PT1S" wf:backoffFactor="3" wf:maxDelay="PT1H"`, 0.5,
			[]time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 27 * time.Second},
		},
		{
			"exponential, factor 2 by default", `wf:retries="3" wf:retryDelay="PT1S"`, 0.5,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			"linear", `wf:retries="3" wf:backoff="linear" wf:retryDelay="PT2S"`, 0.5,
			[]time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second},
		},
		{
			"fixed", `wf:retries="3" wf:backoff="fixed" wf:retryDelay="PT5S"`, 0.5,
			[]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second},
		},
		{
			"immediate", `wf:retries="3" wf:backoff="immediate" wf:retryDelay="PT5S"`, 0.5,
			[]time.Duration{0, 0, 0},
		},
		{
			"max delay caps the growth", `wf:retries="4" wf:retryDelay="PT10S" wf:backoffFactor="3" wf:maxDelay="PT1M"`, 0.5,
			[]time.Duration{10 * time.Second, 30 * time.Second, time.Minute, time.Minute},
		},
		{
			"jitter spreads the delay", `wf:retries="2" wf:backoff="fixed" wf:retryDelay="PT10S" wf:jitter="0.2"`, 1,
			[]time.Duration{12 * time.Second, 12 * time.Second},
		},
		{
			"jitter off uses the delay as computed", `wf:retries="2" wf:backoff="fixed" wf:retryDelay="PT10S" wf:jitter="0"`, 1,
			[]time.Duration{10 * time.Second, 10 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t, withConfig(func(c *engine.Config) { c.Random = func() float64 { return tc.random } }))
			h.e.RegisterHandler("flaky", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
				return nil, errors.New("service down")
			}))
			rec := h.deploySource(retryProcess("retry", tc.attrs))
			inst := h.start(rec.Key, nil)

			h.fireAll(20)
			h.requireStatus(inst.ID, engine.StatusIncident)
			var announced, waited []time.Duration
			var retryAt time.Time
			for _, ev := range h.events(inst.ID) {
				switch {
				case ev.Type == engine.EventJobRetrying:
					ms, ok := ev.Detail["delayMs"].(int64)
					require.True(t, ok, "delayMs is %T", ev.Detail["delayMs"])
					announced = append(announced, time.Duration(ms)*time.Millisecond)
					retryAt = ev.Time
				case ev.Type == engine.EventJobCreated && !retryAt.IsZero():
					waited = append(waited, ev.Time.Sub(retryAt))
				}
			}
			require.Equal(t, tc.delays, announced, "the delays job.retrying announced")
			require.Equal(t, tc.delays, waited, "the time from each failure to the next attempt")
			require.Equal(t, len(tc.delays)+1, h.count(inst.ID, engine.EventJobCreated, "work"), "first attempt and every retry")
		})
	}
}

package bpmn_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

func limitsDoc(processAttrs, taskAttrs string) []byte {
	return fmt.Appendf(nil, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
	  <process id="p" isExecutable="true" %s>
	    <startEvent id="start"/>
	    <serviceTask id="call" wf:type="http" %s/>
	    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
	  </process>
	</definitions>`, processAttrs, taskAttrs)
}

func TestParseLimitsAndRetryAttributes(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse(limitsDoc(
		`wf:timeout="PT30M" wf:maxConcurrentInstances="4" wf:overLimit="Refuse" wf:retryBudget="10" wf:onFailure="fail"`,
		`wf:backoffFactor="1.5" wf:retryOnStatus="429, 503,429"`), bpmn.Options{})
	require.NoError(t, err)
	require.Equal(t, model.Limits{
		Timeout: 30 * time.Minute, MaxConcurrent: 4, OverLimit: model.OverLimitRefuse, RetryBudget: 10, OnFailure: model.FailureFail,
	}, def.Main().Limits)
	retry := def.Main().Node("call").Retry
	require.InDelta(t, 1.5, retry.Factor, 0)
	require.Equal(t, []int{429, 503}, retry.RetryOnStatus)
}

func TestParseLimitsProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ process, task, want string }{
		{`wf:timeout="soon"`, ``, `wf:timeout`},
		{`wf:timeout="PT0S"`, ``, `wf:timeout "PT0S" is not a positive duration`},
		{`wf:maxConcurrentInstances="0"`, ``, `wf:maxConcurrentInstances "0" is not a positive whole number`},
		{`wf:overLimit="wait"`, ``, `wf:overLimit "wait"`},
		{`wf:retryBudget="lots"`, ``, `wf:retryBudget "lots"`},
		{`wf:onFailure="retry"`, ``, `wf:onFailure "retry"`},
		{``, `wf:backoffFactor="0.5"`, `wf:backoffFactor "0.5" is not a factor from 1 to 100`},
		{``, `wf:retryOnStatus="429, 200"`, `wf:retryOnStatus has "200"`},
	} {
		_, err := bpmn.Parse(limitsDoc(tc.process, tc.task), bpmn.Options{})
		var probs model.Problems
		require.True(t, errors.As(err, &probs), "%s%s: %v", tc.process, tc.task, err)
		require.Len(t, probs, 1)
		require.Contains(t, probs[0].Message, tc.want)
		if tc.task != "" {
			require.Equal(t, "call", probs[0].ElementID)
		} else {
			require.Equal(t, "p", probs[0].ElementID)
		}
	}
}

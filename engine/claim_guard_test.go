package engine_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// TestClaimGuardedByStore: a claim is no lock in a process's memory but a
// compare-and-set the instance's applier makes on the instance as stored
// (a waiting instance is reloaded for each command), committed under the
// store's sequence guard (storetest's CommitConcurrent: of commits from one
// sequence, one is stored). Forty claims for different users, spread over
// two engines on one store, race for one task: exactly one is stored; the
// others are refused (the task is held, or their commit lost the race).
func TestClaimGuardedByStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := memstore.New()
	engines := []*engine.Engine{engineOn(t, st), engineOn(t, st)}
	rec, _, err := engines[0].Deploy(ctx, engine.DeployRequest{Source: cappedProcess("claims", "")})
	require.NoError(t, err)
	inst, _, err := engines[0].Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.NoError(t, engines[0].WaitIdle(ctx))
	tasks, _, err := st.Tasks(ctx, engine.TaskFilter{InstanceID: inst.ID, Status: engine.TaskOpen})
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	task := tasks[0]

	const claims = 40
	winners := make(chan string, claims)
	var wg sync.WaitGroup
	for i := range claims {
		user := fmt.Sprintf("user-%d", i)
		wg.Go(func() {
			_, err := engines[i%2].Assign(ctx, engine.Assignment{TaskID: task.ID, By: user, To: user, Reason: engine.AssignClaim})
			switch {
			case err == nil:
				winners <- user
			case !errors.Is(err, engine.ErrTaskAssignee) && !errors.Is(err, engine.ErrConflict):
				t.Errorf("claim by %s: %v", user, err)
			}
		})
	}
	wg.Wait()
	close(winners)
	var won []string
	for u := range winners {
		won = append(won, u)
	}
	require.Len(t, won, 1, "one claim wins")

	stored, err := st.Task(ctx, task.ID)
	require.NoError(t, err)
	require.Equal(t, won[0], stored.Assignee)
	events, err := st.Events(ctx, inst.ID, 0, 0)
	require.NoError(t, err)
	n := 0
	for i, ev := range events {
		require.EqualValues(t, i+1, ev.Seq, "the log has no gap")
		if ev.Type == engine.EventTaskClaimed {
			n++
		}
	}
	require.Equal(t, 1, n)
}

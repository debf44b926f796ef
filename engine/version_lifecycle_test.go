package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// versioned is process "lc" whose user task is named after the version, so
// every deployment is a new version.
func versioned(name string) []byte {
	return fmt.Appendf(nil, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="lc" isExecutable="true">
    <startEvent id="s"/><userTask id="wait" name=%q/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
  </process></definitions>`, name)
}

func (h *harness) deployVersion(name string, req engine.DeployRequest) engine.DefinitionRecord {
	h.t.Helper()
	req.Source = versioned(name)
	rec, created, err := h.e.Deploy(h.ctx, req)
	require.NoError(h.t, err)
	require.True(h.t, created)
	return rec
}

// startedVersion starts lc without a version and returns the version it got.
func (h *harness) startedVersion() int {
	h.t.Helper()
	snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "lc"})
	require.NoError(h.t, err)
	return snap.Version
}

func (h *harness) defaultOf(key string) int {
	h.t.Helper()
	l, err := h.e.Lifecycle(h.ctx, key)
	require.NoError(h.t, err)
	return l.Default
}

func TestVersionDeployRecordsStatusSummaryAndDeployer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	v1 := h.deployVersion("one", engine.DeployRequest{ChangeSummary: "first cut", Deployer: "ann"})
	require.Equal(t, engine.VersionActive, v1.Status)
	require.Equal(t, "first cut", v1.ChangeSummary)
	require.Equal(t, "ann", v1.Deployer)
	require.Equal(t, []engine.VersionChange{{At: v1.Deployed, By: "ann", To: engine.VersionActive}}, v1.History)
	v2 := h.deployVersion("two", engine.DeployRequest{Status: engine.VersionDraft, ChangeSummary: "try", Deployer: "bob"})
	require.Equal(t, engine.VersionDraft, v2.Status)
	require.Equal(t, 1, h.defaultOf("lc"), "a draft does not become the default")
	require.Equal(t, 1, h.startedVersion())

	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: versioned("three"), Status: engine.VersionDeprecated})
	require.ErrorIs(t, err, engine.ErrInvalidInput)
}

func TestVersionTransitions(t *testing.T) {
	t.Parallel()
	allowed := map[engine.VersionStatus][]engine.VersionStatus{
		engine.VersionDraft:      {engine.VersionActive},
		engine.VersionActive:     {engine.VersionDeprecated, engine.VersionArchived},
		engine.VersionDeprecated: {engine.VersionActive, engine.VersionArchived},
		engine.VersionArchived:   {engine.VersionDeprecated},
	}
	// to reach gets a fresh version into each status.
	reach := map[engine.VersionStatus][]engine.VersionStatus{
		engine.VersionDraft:      nil,
		engine.VersionActive:     {engine.VersionActive},
		engine.VersionDeprecated: {engine.VersionActive, engine.VersionDeprecated},
		engine.VersionArchived:   {engine.VersionActive, engine.VersionArchived},
	}
	all := []engine.VersionStatus{engine.VersionDraft, engine.VersionActive, engine.VersionDeprecated, engine.VersionArchived}
	for _, from := range all {
		for _, to := range all {
			t.Run(fmt.Sprintf("%s_to_%s", from, to), func(t *testing.T) {
				t.Parallel()
				h := setup(t)
				rec := h.deployVersion("v", engine.DeployRequest{Status: engine.VersionDraft})
				for _, step := range reach[from] {
					var err error
					rec, err = h.e.SetVersionStatus(h.ctx, "lc", 1, step, "ops", false)
					require.NoError(t, err)
				}
				require.Equal(t, from, rec.Status)
				got, err := h.e.SetVersionStatus(h.ctx, "lc", 1, to, "ops", false)
				if !slices.Contains(allowed[from], to) {
					require.ErrorIs(t, err, engine.ErrVersionTransition)
					require.ErrorContains(t, err, fmt.Sprintf("lc:1 is %s and cannot become %s", from, to))
					return
				}
				require.NoError(t, err)
				require.Equal(t, to, got.Status)
				last := got.History[len(got.History)-1]
				require.Equal(t, engine.VersionChange{At: last.At, By: "ops", From: from, To: to}, last)
			})
		}
	}
}

func TestVersionDefaultFollowsActivationAndRollback(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	require.Equal(t, 2, h.startedVersion())

	_, err := h.e.Rollback(h.ctx, "lc", 1, "ann")
	require.NoError(t, err)
	require.Equal(t, 1, h.defaultOf("lc"))
	require.Equal(t, 1, h.startedVersion())

	h.deployVersion("three", engine.DeployRequest{KeepDefault: true})
	require.Equal(t, 1, h.startedVersion(), "makeDefault false keeps the default")
	h.deployVersion("four", engine.DeployRequest{Status: engine.VersionDraft})
	_, err = h.e.SetVersionStatus(h.ctx, "lc", 4, engine.VersionActive, "ann", false)
	require.NoError(t, err)
	require.Equal(t, 4, h.startedVersion(), "an activated version becomes the default")

	_, err = h.e.Rollback(h.ctx, "lc", 9, "ann")
	require.ErrorIs(t, err, engine.ErrNotFound)
	l, err := h.e.Lifecycle(h.ctx, "lc")
	require.NoError(t, err)
	var moves [][2]int
	for _, c := range l.Head.Defaults {
		moves = append(moves, [2]int{c.From, c.To})
	}
	require.Equal(t, [][2]int{{0, 1}, {1, 2}, {2, 1}, {1, 4}}, moves)
	require.Equal(t, "rollback", l.Head.Defaults[2].Reason)
	require.Equal(t, "ann", l.Head.Defaults[2].By)
}

func TestVersionRollbackReactivatesDeprecatedAndRefusesOthers(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	_, err := h.e.SetVersionStatus(h.ctx, "lc", 1, engine.VersionDeprecated, "ann", false)
	require.NoError(t, err)
	rec, err := h.e.Rollback(h.ctx, "lc", 1, "ann")
	require.NoError(t, err)
	require.Equal(t, engine.VersionActive, rec.Status)
	require.Equal(t, 1, h.startedVersion())

	h.deployVersion("three", engine.DeployRequest{Status: engine.VersionDraft})
	_, err = h.e.Rollback(h.ctx, "lc", 3, "ann")
	require.ErrorIs(t, err, engine.ErrVersionTransition)
	_, err = h.e.SetVersionStatus(h.ctx, "lc", 2, engine.VersionArchived, "ann", false)
	require.NoError(t, err)
	_, err = h.e.Rollback(h.ctx, "lc", 2, "ann")
	require.ErrorIs(t, err, engine.ErrVersionTransition)
	require.NoError(t, h.e.SetDefinitionEnabled(h.ctx, "lc:1", false, "ann"))
	_, err = h.e.Rollback(h.ctx, "lc", 1, "ann")
	require.ErrorIs(t, err, engine.ErrNotStartable)
}

func TestVersionDefaultFallsBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		retire func(h *harness, v int) error
	}{
		{"deprecated", func(h *harness, v int) error {
			_, err := h.e.SetVersionStatus(h.ctx, "lc", v, engine.VersionDeprecated, "ann", false)
			return err
		}},
		{"archived", func(h *harness, v int) error {
			_, err := h.e.SetVersionStatus(h.ctx, "lc", v, engine.VersionArchived, "ann", false)
			return err
		}},
		{"disabled", func(h *harness, v int) error {
			return h.e.SetDefinitionEnabled(h.ctx, engine.DefinitionID("lc", v), false, "ann")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.deployVersion("one", engine.DeployRequest{})
			h.deployVersion("two", engine.DeployRequest{Status: engine.VersionDraft})
			h.deployVersion("three", engine.DeployRequest{})
			h.deployVersion("four", engine.DeployRequest{KeepDefault: true})

			require.NoError(t, tc.retire(h, 3))
			require.Equal(t, 1, h.defaultOf("lc"), "the highest active version below, past the draft")
			require.Equal(t, 1, h.startedVersion())

			require.NoError(t, tc.retire(h, 1))
			require.Equal(t, 0, h.defaultOf("lc"))
			_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "lc"})
			require.ErrorIs(t, err, engine.ErrNoDefaultVersion)
			require.ErrorContains(t, err, `definition "lc" has no default version`)

			snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "lc", Version: 4})
			require.NoError(t, err, "a version by number still starts")
			require.Equal(t, 4, snap.Version)
		})
	}
}

func TestVersionRetiringOtherThanDefaultKeepsIt(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	_, err := h.e.SetVersionStatus(h.ctx, "lc", 1, engine.VersionArchived, "ann", false)
	require.NoError(t, err)
	require.Equal(t, 2, h.defaultOf("lc"))
}

func TestVersionStartRules(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	h.deployVersion("three", engine.DeployRequest{Status: engine.VersionDraft})
	_, err := h.e.SetVersionStatus(h.ctx, "lc", 1, engine.VersionDeprecated, "ann", false)
	require.NoError(t, err)

	s, err := h.e.StartInstance(h.ctx, engine.StartRequest{Definition: "lc", Version: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"definition lc:1 is deprecated: it still starts, but move to the default version"}, s.Warnings)
	h.idle()
	started := h.events(s.Snapshot.ID)[0]
	require.Equal(t, engine.EventInstanceStarted, started.Type)
	require.Equal(t, s.Warnings[0], started.Detail["warning"])

	s, err = h.e.StartInstance(h.ctx, engine.StartRequest{Definition: "lc", Version: 2})
	require.NoError(t, err)
	require.Empty(t, s.Warnings)

	_, err = h.e.StartInstance(h.ctx, engine.StartRequest{Definition: "lc", Version: 3})
	require.ErrorIs(t, err, engine.ErrNotStartable)
	require.ErrorContains(t, err, "definition lc:3 is draft")

	_, err = h.e.SetVersionStatus(h.ctx, "lc", 1, engine.VersionArchived, "ann", false)
	require.NoError(t, err)
	_, err = h.e.StartInstance(h.ctx, engine.StartRequest{Definition: "lc", Version: 1})
	require.ErrorIs(t, err, engine.ErrNotStartable)
	require.ErrorContains(t, err, "definition lc:1 is archived")
}

func TestVersionCallActivityGoesToTheDefault(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	_, err := h.e.Rollback(h.ctx, "lc", 1, "ann")
	require.NoError(t, err)
	parent := h.deploySource([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="p">
  <process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="lc"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
  </process></definitions>`))
	snap := h.start(parent.Key, nil)
	kids := h.children(snap.ID)
	require.Len(t, kids, 1)
	require.Equal(t, 1, kids[0].Version)
}

func TestVersionMessageStartGoesToTheDefault(t *testing.T) {
	t.Parallel()
	h := setup(t)
	msg := func(task string) []byte {
		return fmt.Appendf(nil, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="m">
  <process id="ms" isExecutable="true">
    <startEvent id="s"><messageEventDefinition messageRef="go"/></startEvent><userTask id=%q/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef=%q/><sequenceFlow id="f2" sourceRef=%q targetRef="e"/>
  </process><message id="go" name="go"/></definitions>`, task, task, task)
	}
	for _, task := range []string{"one", "two"} {
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: msg(task)})
		require.NoError(t, err)
	}
	_, err := h.e.Rollback(h.ctx, "ms", 1, "ann")
	require.NoError(t, err)
	n, err := h.e.Correlate(h.ctx, engine.Message{Name: "go"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h.idle()
	page, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "ms"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, 1, page[0].Version)
}

func TestVersionLifecycleSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	e := engineOn(t, st)
	ctx := t.Context()
	for _, name := range []string{"one", "two", "three"} {
		_, _, err := e.Deploy(ctx, engine.DeployRequest{Source: versioned(name), ChangeSummary: "made " + name})
		require.NoError(t, err)
	}
	_, err := e.SetVersionStatus(ctx, "lc", 3, engine.VersionDeprecated, "ann", false)
	require.NoError(t, err)
	_, err = e.SetVersionStatus(ctx, "lc", 1, engine.VersionArchived, "ann", false)
	require.NoError(t, err)
	e.Close()

	again := engineOn(t, st)
	l, err := again.Lifecycle(ctx, "lc")
	require.NoError(t, err)
	require.Equal(t, 2, l.Default)
	var statuses []engine.VersionStatus
	for _, v := range l.Versions {
		statuses = append(statuses, v.Status)
	}
	require.Equal(t, []engine.VersionStatus{engine.VersionDeprecated, engine.VersionActive, engine.VersionArchived}, statuses)
	require.Equal(t, "made two", l.Versions[1].ChangeSummary)
	snap, _, err := again.Start(ctx, engine.StartRequest{Definition: "lc"})
	require.NoError(t, err)
	require.Equal(t, 2, snap.Version)
}

// TestVersionTimerStartFollowsTheDefault: the default version owns the
// timer start events; a draft takes nothing over, a rollback moves them,
// and with no default they stop.
func TestVersionTimerStartFollowsTheDefault(t *testing.T) {
	t.Parallel()
	h := setup(t)
	ticker := func(task string) []byte {
		return fmt.Appendf(nil, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="t">
  <process id="tick" isExecutable="true">
    <startEvent id="s"><timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition></startEvent><endEvent id=%q/>
    <sequenceFlow id="f1" sourceRef="s" targetRef=%q/>
  </process></definitions>`, task, task)
	}
	deploy := func(task string, status engine.VersionStatus) {
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: ticker(task), Status: status})
		require.NoError(t, err)
	}
	versions := func() []int {
		h.idle()
		page, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "tick"})
		require.NoError(t, err)
		var out []int
		for _, s := range page {
			out = append(out, s.Version)
		}
		slices.Sort(out)
		return out
	}
	deploy("one", "")
	deploy("two", "")
	deploy("three", engine.VersionDraft)
	h.advance(time.Hour)
	require.Equal(t, []int{2}, versions(), "the default's timer, not the draft's")
	_, err := h.e.Rollback(h.ctx, "tick", 1, "ann")
	require.NoError(t, err)
	h.advance(time.Hour)
	require.Equal(t, []int{1, 2}, versions())
	_, err = h.e.SetVersionStatus(h.ctx, "tick", 1, engine.VersionDeprecated, "ann", false)
	require.NoError(t, err)
	h.advance(time.Hour)
	require.Equal(t, []int{1, 2}, versions(), "no default: the timers stopped")
}

// A start keeps the version records it picked from while their head's Rev
// stands. Another replica's change of a version raises it, so the next start
// here reads the record again, even when that replica stopped before moving
// the default (here only the store sees the change).
func TestVersionChangedElsewhereReachesTheNextStart(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	require.Equal(t, 2, h.startedVersion())

	require.NoError(t, h.store.SetDefinitionEnabled(h.ctx, "lc:2", false))
	require.Equal(t, 1, h.startedVersion(), "v2 is read again: disabled, the start falls back below it")
	require.NoError(t, h.store.SetDefinitionEnabled(h.ctx, "lc:2", true))
	require.Equal(t, 2, h.startedVersion())

	_, err := h.store.SetVersionStatus(h.ctx, "lc:2", engine.VersionChange{At: h.clock.Now(), From: engine.VersionActive, To: engine.VersionDeprecated})
	require.NoError(t, err)
	require.Equal(t, 1, h.startedVersion(), "v2 is read again: deprecated")
}

// frozenRevStore never shows a head's Rev raised, as when a replica stopped
// between changing a version and raising the Rev.
type frozenRevStore struct{ *memstore.Store }

func (s frozenRevStore) DefinitionHead(ctx context.Context, key string) (engine.DefinitionHead, error) {
	h, err := s.Store.DefinitionHead(ctx, key)
	h.Rev = 0
	return h, err
}

// Without a raised Rev a version record is still read again within
// versionRecordTTL (5 s).
func TestVersionRecordIsReadAgainAfterItsTTL(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.Store = frozenRevStore{c.Store.(*memstore.Store)} }))
	h.deployVersion("one", engine.DeployRequest{})
	h.deployVersion("two", engine.DeployRequest{})
	require.Equal(t, 2, h.startedVersion())

	require.NoError(t, h.store.SetDefinitionEnabled(h.ctx, "lc:2", false))
	require.Equal(t, 2, h.startedVersion(), "the Rev did not move: v2 as read")
	h.clock.Advance(5 * time.Second)
	require.Equal(t, 1, h.startedVersion(), "read again after 5 s: disabled")
}

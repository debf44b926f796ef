package bpmn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// conformanceDir finds shared/conformance beside the repository, as CI
// clones it. Missing is a failure, not a skip: the suite must run.
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the package")
		dir = parent
	}
	conf := filepath.Join(dir, "..", "shared", "conformance")
	_, err = os.Stat(conf)
	require.NoError(t, err, "the conformance files must sit beside the repository in shared/conformance")
	return conf
}

// verdict is what a problem on a conformance file means.
type verdict int

const (
	unexpected  verdict = iota
	unsupported         // about an element Workflow++ does not run, or follows from one
	incomplete          // legal BPMN a modelling tool leaves incomplete for execution
)

// incompleteForExecution are validation messages for things BPMN allows but
// an engine cannot run: an interchange file draws a message event without
// saying which message, a timer without a time, an empty collapsed sub-process.
var incompleteForExecution = []string{
	"the message event has no message name",
	"the receive task has no message name",
	"the timer has no definition",
	"a sub-process needs exactly one start event without a trigger, found 0",
}

// classify sorts the problems of one document. A problem about an element
// that also has an unsupported problem follows from it (e.g. an event
// sub-process has no incoming flow, so it is unreachable).
func classify(probs model.Problems) map[verdict]model.Problems {
	unsupportedIDs := map[string]bool{}
	for _, p := range probs {
		if bpmn.IsUnsupported(p) && p.ElementID != "" {
			unsupportedIDs[p.ElementID] = true
		}
	}
	out := map[verdict]model.Problems{}
	for _, p := range probs {
		v := unexpected
		switch {
		case bpmn.IsUnsupported(p) || unsupportedIDs[p.ElementID]:
			v = unsupported
		default:
			for _, m := range incompleteForExecution {
				if strings.Contains(p.Message, m) {
					v = incomplete
				}
			}
		}
		out[v] = append(out[v], p)
	}
	return out
}

// brokenFiles are lib-bpmn-engine files named broken or invalid, with why.
var brokenFiles = map[string]struct {
	static bool // the parser and validator see it; else only an expression compiler or a run does
	why    string
}{
	"simple-link-event-broken.bpmn":                            {true, "a link throw without its catch"},
	"message-intermediate-invalid-timer-event.bpmn":            {true, "a timer without a time"},
	"service-task-invalid-input.bpmn":                          {false, "input source is not valid FEEL: needs Checks.Expression"},
	"service-task-invalid-output.bpmn":                         {false, "output source is not valid FEEL: needs Checks.Expression"},
	"simple-intermediate-message-catch-event-broken.bpmn":      {false, "output mapping = X / Y fails at run time on missing variables"},
	"message-intermediate-timer-event-invalid-expression.bpmn": {false, "timer =a-b fails at run time: not a duration"},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	conf := conformanceDir(t)
	for _, suite := range []struct {
		dir         string
		interchange bool // drawings exchanged between tools, not meant to run as they are
	}{
		{"miwg-reference", true},
		{"lib-bpmn-engine", false},
	} {
		files, err := filepath.Glob(filepath.Join(conf, suite.dir, "*.bpmn"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "no conformance files in %s", suite.dir)
		for _, file := range files {
			name := filepath.Base(file)
			t.Run(suite.dir+"/"+name, func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(file)
				require.NoError(t, err)
				def, err := bpmn.Parse(data, bpmn.Options{})
				var probs model.Problems
				if err != nil {
					require.ErrorAs(t, err, &probs, "the file must parse")
				}
				require.NotNil(t, def)
				require.NotEmpty(t, def.Processes)
				probs = append(probs, model.Validate(def, model.Checks{})...)
				got := classify(probs)
				for _, p := range got[unsupported] {
					t.Logf("unsupported: %s", p)
				}
				for _, p := range got[incomplete] {
					t.Logf("incomplete for execution: %s", p)
				}

				broken, ok := brokenFiles[name]
				require.Equal(t, strings.Contains(name, "broken") || strings.Contains(name, "invalid"), ok,
					"files named broken or invalid are listed in brokenFiles with why, and only they")
				if ok {
					t.Logf("broken on purpose: %s", broken.why)
					for _, p := range got[unexpected] {
						t.Logf("problem: %s", p)
					}
					if broken.static {
						require.NotEmpty(t, append(got[unexpected], got[incomplete]...), "a broken file must have problems")
					}
					return
				}
				require.Empty(t, got[unexpected], "problems that are neither unsupported elements nor incomplete drawings:\n%s", list(got[unexpected]))
				if !suite.interchange {
					require.Empty(t, got[incomplete], "an executable example must be complete:\n%s", list(got[incomplete]))
				}
			})
		}
	}
	t.Run("every broken file exists", func(t *testing.T) {
		t.Parallel()
		for name := range brokenFiles {
			_, err := os.Stat(filepath.Join(conf, "lib-bpmn-engine", name))
			require.NoError(t, err)
		}
	})
}

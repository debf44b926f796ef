package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/runner"
)

// The scenario suite: one small BPMN file per element and position under
// engine/testdata/scenarios, each run through runner.Run with the inputs and
// expected outcome engine/testdata/scenarios/scenarios.json gives, and the
// conformance matrix (docs/conformance-matrix.md) generated from that table
// and the runs.

var update = flag.Bool("update", false, "rewrite docs/conformance-matrix.md from the scenario table and runs")

const (
	scenarioDir = "../testdata/scenarios"
	matrixFile  = "../../docs/conformance-matrix.md"
)

// scenarioTable is scenarios.json.
type scenarioTable struct {
	Scenarios []scenario  `json:"scenarios"`
	Rows      []matrixRow `json:"rows"` // matrix rows no scenario runs: not in BPMN, or unsupported without a file
}

// scenario is one run of one file.
type scenario struct {
	Name          string                    `json:"name"` // tells apart runs of one file
	File          string                    `json:"file"` // relative to scenarioDir
	Element       string                    `json:"element"`
	Position      string                    `json:"position"`
	Interrupting  *bool                     `json:"interrupting"`
	Variables     map[string]any            `json:"variables"`
	Messages      []engine.Message          `json:"messages"`
	Signals       []runner.Signal           `json:"signals"`
	CompleteTasks bool                      `json:"completeTasks"`
	TaskVariables map[string]any            `json:"taskVariables"`
	Handlers      map[string]map[string]any `json:"handlers"`    // job type: the variables its jobs return
	ThrowErrors   map[string]string         `json:"throwErrors"` // job type: the BPMN error code its jobs throw
	Deploy        []string                  `json:"deploy"`      // files deployed first, relative to scenarioDir
	Want          scenarioWant              `json:"want"`        // what BPMN says happens
	KnownGap      string                    `json:"knownGap"`    // the engine runs it but deviates from want: the scenario fails on purpose
	// Unsupported is part of the problem message the engine refuses the
	// deploy with; the row is unsupported, and want waits for the day it runs.
	Unsupported string `json:"unsupported"`
}

type scenarioWant struct {
	Status          string         `json:"status"`
	Visited         []string       `json:"visited"`         // completed elements, in order
	VisitedIncludes []string       `json:"visitedIncludes"` // completed elements, as a multiset, among others
	VisitedTimes    map[string]int `json:"visitedTimes"`    // how many times each of these elements completed, in any order
	NotVisited      []string       `json:"notVisited"`
	Variables       map[string]any `json:"variables"`
	NoVariables     []string       `json:"noVariables"`
	Tasks           []string       `json:"tasks"`    // open user tasks' elements, any order
	Incident        string         `json:"incident"` // the element with the one open incident
	Children        []childWant    `json:"children"` // instances call activities started, oldest first
}

type childWant struct {
	Process string   `json:"process"`
	Status  string   `json:"status"`
	Visited []string `json:"visited"`
}

// matrixRow is a row of the matrix that has no scenario.
type matrixRow struct {
	Element      string `json:"element"`
	Position     string `json:"position"`
	Interrupting *bool  `json:"interrupting"`
	Status       string `json:"status"` // rowNotInBPMN or rowUnsupported
	Why          string `json:"why"`
}

// Row statuses.
const (
	rowSupported   = "supported"
	rowGap         = "gap"
	rowUnsupported = "unsupported"
	rowPartial     = "partial" // some scenarios run, others are refused
	rowNotInBPMN   = "not in BPMN"
)

// matrixGroup is a block of the matrix: every element of it has a row for
// every position (split by interrupting where BPMN has both).
type matrixGroup struct {
	title     string
	axis      string // what the position column means
	elements  []string
	positions []string
	both      map[string]bool // positions with interrupting and non-interrupting rows
}

var matrixGroups = []matrixGroup{
	{
		title: "Events", axis: "position",
		elements: []string{
			"none", "message", "timer", "error", "escalation", "signal", "conditional",
			"compensation", "cancel", "terminate", "link", "multiple", "parallelMultiple",
		},
		positions: []string{"start", "eventSubProcessStart", "intermediateCatch", "intermediateThrow", "boundary", "end"},
		both:      map[string]bool{"eventSubProcessStart": true, "boundary": true},
	},
	{
		title: "Gateways", axis: "direction",
		elements:  []string{"exclusiveGateway", "parallelGateway", "inclusiveGateway", "eventBasedGateway", "complexGateway"},
		positions: []string{"split", "join"},
	},
	{
		title: "Activities", axis: "marker",
		elements: []string{
			"task", "manualTask", "userTask", "serviceTask", "scriptTask", "sendTask", "receiveTask",
			"businessRuleTask", "subProcess", "eventSubProcess", "transaction", "adHocSubProcess", "callActivity",
		},
		positions: []string{"single", "standardLoop", "multiInstanceParallel", "multiInstanceSequential"},
	},
}

// rowKey names a matrix row.
type rowKey struct {
	element, position, interrupting string
}

func keyOf(element, position string, interrupting *bool) rowKey {
	k := rowKey{element: element, position: position, interrupting: "—"}
	if interrupting != nil {
		k.interrupting = map[bool]string{true: "interrupting", false: "non-interrupting"}[*interrupting]
	}
	return k
}

func (s scenario) key() rowKey { return keyOf(s.Element, s.Position, s.Interrupting) }

// title names the scenario's subtest.
func (s scenario) title() string {
	name := strings.TrimSuffix(s.File, ".bpmn")
	if s.Name != "" {
		name += "/" + s.Name
	}
	return name
}

func loadScenarioTable(t *testing.T) scenarioTable {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(scenarioDir, "scenarios.json"))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var tab scenarioTable
	require.NoError(t, dec.Decode(&tab), "scenarios.json")
	return tab
}

// scenarioOutcome is what a run showed.
type scenarioOutcome struct {
	failures []string // empty: the scenario's expectations held
	problem  string   // the problem message a refused deploy gave
}

// failureRecorder collects assertion failures instead of failing a test, so
// that a known gap can be expected to fail and the matrix can tell what passed.
type failureRecorder struct {
	mu       sync.Mutex
	failures []string
}

func (r *failureRecorder) Errorf(format string, args ...any) {
	msg := errorTrace.ReplaceAllString(fmt.Sprintf(format, args...), "$1")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, strings.TrimSpace(msg))
}

// errorTrace is the call stack testify puts first in a failure: the line
// in runScenario says nothing about the scenario.
var errorTrace = regexp.MustCompile(`(?s)\s*Error Trace:.*?(\n\s*Error:)`)

// The scenarios run once per test binary; TestScenarios and
// TestConformanceMatrix both read the outcomes.
var (
	scenarioRunsOnce sync.Once
	scenarioRuns     map[string]scenarioOutcome // by title
)

func scenarioOutcomes(t *testing.T, tab scenarioTable) map[string]scenarioOutcome {
	t.Helper()
	scenarioRunsOnce.Do(func() {
		scenarioRuns = make(map[string]scenarioOutcome, len(tab.Scenarios))
		var (
			mu  sync.Mutex
			wg  sync.WaitGroup
			sem = make(chan struct{}, runtime.GOMAXPROCS(0))
		)
		for _, s := range tab.Scenarios {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				o := runScenario(t.Context(), s)
				mu.Lock()
				scenarioRuns[s.title()] = o
				mu.Unlock()
			})
		}
		wg.Wait()
	})
	return scenarioRuns
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	tab := loadScenarioTable(t)
	got := scenarioOutcomes(t, tab)
	for _, s := range tab.Scenarios {
		t.Run(s.title(), func(t *testing.T) {
			o := got[s.title()]
			if s.KnownGap != "" {
				if len(o.failures) == 0 {
					t.Errorf("known gap %q no longer shows: the scenario passes; remove knownGap and regenerate the matrix", s.KnownGap)
					return
				}
				t.Logf("known gap: %s", s.KnownGap)
				for _, f := range o.failures {
					t.Logf("as expected: %s", f)
				}
				return
			}
			for _, f := range o.failures {
				t.Error(f)
			}
		})
	}
	t.Run("every file and matrix row is in the table", func(t *testing.T) { checkScenarioTable(t, tab) })
}

// checkScenarioTable asserts that every file is in the table, every title
// is unique and every matrix row is accounted for once.
func checkScenarioTable(t *testing.T, tab scenarioTable) {
	listed := map[string]bool{}
	titles := map[string]bool{}
	for _, s := range tab.Scenarios {
		assert.False(t, titles[s.title()], "two scenarios are titled %s: name one", s.title())
		titles[s.title()] = true
		listed[s.File] = true
		for _, d := range s.Deploy {
			listed[d] = true
		}
		assert.False(t, s.KnownGap != "" && s.Unsupported != "", "%s: a refused deploy is no gap", s.title())
		assert.NotEmpty(t, s.Want.Status, "%s: want says no status", s.title())
	}
	err := filepath.WalkDir(scenarioDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".bpmn" {
			return err
		}
		rel, err := filepath.Rel(scenarioDir, path)
		if err != nil {
			return err
		}
		assert.True(t, listed[filepath.ToSlash(rel)], "%s is in no scenario of scenarios.json", rel)
		return nil
	})
	require.NoError(t, err)

	valid := map[rowKey]bool{}
	for _, g := range matrixGroups {
		for _, k := range g.keys() {
			valid[k] = true
		}
	}
	byScenario := map[rowKey]bool{}
	for _, s := range tab.Scenarios {
		assert.True(t, valid[s.key()], "%s: no matrix row %v", s.title(), s.key())
		byScenario[s.key()] = true
	}
	byRow := map[rowKey]bool{}
	for _, r := range tab.Rows {
		k := keyOf(r.Element, r.Position, r.Interrupting)
		assert.True(t, valid[k], "row %v is not in the matrix", k)
		assert.False(t, byRow[k], "row %v is listed twice", k)
		assert.False(t, byScenario[k], "row %v has scenarios and is listed as %s", k, r.Status)
		assert.Contains(t, []string{rowNotInBPMN, rowUnsupported}, r.Status, "row %v", k)
		assert.NotEmpty(t, r.Why, "row %v says not why it is %s", k, r.Status)
		byRow[k] = true
	}
	for k := range valid {
		assert.True(t, byScenario[k] || byRow[k], "matrix row %v has no scenario and is not listed in rows", k)
	}
}

// keys lists the group's rows in matrix order.
func (g matrixGroup) keys() []rowKey {
	var out []rowKey
	yes, no := true, false
	for _, e := range g.elements {
		for _, p := range g.positions {
			if g.both[p] {
				out = append(out, keyOf(e, p, &yes), keyOf(e, p, &no))
				continue
			}
			out = append(out, keyOf(e, p, nil))
		}
	}
	return out
}

// runScenario runs s and checks what it wants.
func runScenario(ctx context.Context, s scenario) (o scenarioOutcome) {
	rec := &failureRecorder{}
	defer func() {
		if p := recover(); p != nil {
			rec.Errorf("panic: %v", p)
		}
		o.failures = rec.failures
	}()
	src, err := os.ReadFile(filepath.Join(scenarioDir, s.File))
	if err != nil {
		rec.Errorf("%v", err)
		return o
	}
	var deploy [][]byte
	for _, d := range s.Deploy {
		b, err := os.ReadFile(filepath.Join(scenarioDir, d))
		if err != nil {
			rec.Errorf("%v", err)
			return o
		}
		deploy = append(deploy, b)
	}
	handlers := map[string]engine.Handler{}
	for typ, vars := range s.Handlers {
		handlers[typ] = engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return vars, nil })
	}
	for typ, code := range s.ThrowErrors {
		handlers[typ] = engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			return nil, engine.ThrowError(code, "thrown by the "+typ+" handler")
		})
	}
	res, err := runner.Run(ctx, src, runner.Options{
		Variables: s.Variables, Messages: s.Messages, Signals: s.Signals, Deploy: deploy, Handlers: handlers,
		CompleteTasks: s.CompleteTasks, TaskVariables: s.TaskVariables, Strict: true, Timeout: 20 * time.Second,
	})
	if s.Unsupported != "" {
		var probs model.Problems
		if !assert.ErrorAs(rec, err, &probs, "the deploy must be refused as unsupported (if it runs now, drop unsupported and check want)") {
			return o
		}
		i := slices.IndexFunc(probs, func(p model.Problem) bool { return strings.Contains(p.Message, s.Unsupported) })
		if assert.GreaterOrEqual(rec, i, 0, "no problem says %q: %v", s.Unsupported, probs) {
			o.problem = probs[i].String()
		}
		return o
	}
	if !assert.NoError(rec, err) {
		return o
	}
	checkResult(rec, s.Want, res)
	return o
}

func checkResult(t assert.TestingT, want scenarioWant, res *runner.Result) {
	assert.Equal(t, want.Status, res.Status, "status; incidents: %v", res.Incidents)
	if want.Visited != nil {
		assert.Equal(t, want.Visited, res.Visited, "visited, in order")
	}
	for _, id := range want.VisitedIncludes {
		assert.GreaterOrEqual(t, occurrences(res.Visited, id), occurrences(want.VisitedIncludes, id), "%s visited too few times: %v", id, res.Visited)
	}
	for id, n := range want.VisitedTimes {
		assert.Equal(t, n, occurrences(res.Visited, id), "times %s was visited: %v", id, res.Visited)
	}
	for _, id := range want.NotVisited {
		assert.NotContains(t, res.Visited, id, "%s must not be visited", id)
	}
	for k, v := range want.Variables {
		got, ok := res.Variables[k]
		if assert.True(t, ok, "variable %q is not set: %v", k, res.Variables) {
			assert.Equal(t, v, asJSON(got), "variable %q", k)
		}
	}
	for _, k := range want.NoVariables {
		assert.NotContains(t, res.Variables, k, "variable %q must not be set", k)
	}
	var tasks []string
	for _, tk := range res.Tasks {
		tasks = append(tasks, tk.ElementID)
	}
	assert.ElementsMatch(t, want.Tasks, tasks, "open user tasks")
	if want.Incident == "" {
		assert.Empty(t, res.Incidents, "incidents")
	} else if assert.Len(t, res.Incidents, 1, "incidents") {
		assert.Equal(t, want.Incident, res.Incidents[0].ElementID, "incident: %s", res.Incidents[0].Message)
	}
	if want.Children != nil && assert.Len(t, res.Children, len(want.Children), "called instances") {
		for i, w := range want.Children {
			c := res.Children[i]
			assert.Equal(t, w.Process, c.Process, "called instance %d: process", i)
			assert.Equal(t, w.Status, c.Status, "called instance %d: status", i)
			if w.Visited != nil {
				assert.Equal(t, w.Visited, c.Visited, "called instance %d: visited, in order", i)
			}
		}
	}
}

func occurrences(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// asJSON gives a value as scenarios.json would hold it: numbers as
// float64, lists as []any, objects as map[string]any.
func asJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// matrixEntry is a row of the rendered matrix.
type matrixEntry struct {
	key    rowKey
	status string
	files  []string // the scenario files, for rows that have them
	why    string
}

func TestConformanceMatrix(t *testing.T) {
	t.Parallel()
	tab := loadScenarioTable(t)
	got := scenarioOutcomes(t, tab)

	byKey := map[rowKey][]scenario{}
	for _, s := range tab.Scenarios {
		byKey[s.key()] = append(byKey[s.key()], s)
	}
	rows := map[rowKey]matrixRow{}
	for _, r := range tab.Rows {
		rows[keyOf(r.Element, r.Position, r.Interrupting)] = r
	}
	var sections []string
	tally := map[string]int{}
	for _, g := range matrixGroups {
		var entries []matrixEntry
		for _, k := range g.keys() {
			e, err := matrixEntryFor(k, byKey[k], rows, got)
			if err != nil {
				t.Error(err)
			}
			entries = append(entries, e)
			tally[e.status]++
		}
		sections = append(sections, renderGroup(g, entries))
	}
	doc := renderMatrix(sections, tally)

	if *update {
		require.NoError(t, os.WriteFile(matrixFile, []byte(doc), 0o644))
		return
	}
	have, err := os.ReadFile(matrixFile)
	if errors.Is(err, fs.ErrNotExist) {
		have = nil
	} else {
		require.NoError(t, err)
	}
	if string(have) != doc {
		t.Errorf("docs/conformance-matrix.md is not what the scenarios give: run go test ./engine/runner -run TestConformanceMatrix -update\n%s",
			firstDifference(string(have), doc))
	}
}

// matrixEntryFor decides a row's status from its scenarios' outcomes, or
// from the table's row without scenarios. The error says which scenario did
// not end as the table says.
func matrixEntryFor(k rowKey, ss []scenario, rows map[rowKey]matrixRow, got map[string]scenarioOutcome) (matrixEntry, error) {
	e := matrixEntry{key: k}
	if len(ss) == 0 {
		r, ok := rows[k]
		if !ok {
			return e, fmt.Errorf("row %v has no scenario and is not listed in rows", k)
		}
		e.status, e.why = r.Status, r.Why
		return e, nil
	}
	e.status = rowSupported
	var errs []error
	var gaps, problems []string
	for _, s := range ss {
		if !slices.Contains(e.files, s.File) {
			e.files = append(e.files, s.File)
		}
		o := got[s.title()]
		switch {
		case s.KnownGap != "":
			gaps = append(gaps, s.KnownGap)
			if len(o.failures) == 0 {
				errs = append(errs, fmt.Errorf("%s: known gap no longer shows, remove knownGap", s.title()))
			}
		case len(o.failures) > 0:
			errs = append(errs, fmt.Errorf("%s (row %v, marked %s) does not pass: %s", s.title(), k,
				map[bool]string{true: rowUnsupported, false: rowSupported}[s.Unsupported != ""], o.failures[0]))
		case s.Unsupported != "":
			problems = append(problems, o.problem)
		}
	}
	refused := strings.Join(slices.Compact(problems), "; ")
	switch {
	case len(problems) == len(ss):
		e.status, e.why = rowUnsupported, refused
	case len(gaps) > 0:
		e.status, e.why = rowGap, strings.Join(slices.Compact(gaps), "; ")
		if refused != "" {
			e.why += "; refused: " + refused
		}
	case len(problems) > 0:
		e.status, e.why = rowPartial, "refused: "+refused
	}
	return e, errors.Join(errs...)
}

var statusMark = map[string]string{
	rowSupported:   "✅ supported",
	rowGap:         "⚠️ gap",
	rowUnsupported: "❌ unsupported",
	rowPartial:     "🟡 partial",
	rowNotInBPMN:   "— not in BPMN",
}

func renderGroup(g matrixGroup, entries []matrixEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", g.title)
	split := len(g.both) > 0 // only events have interrupting and non-interrupting rows
	if split {
		fmt.Fprintf(&b, "| element | %s | interrupting | status | scenarios / why |\n|---|---|---|---|---|\n", g.axis)
	} else {
		fmt.Fprintf(&b, "| element | %s | status | scenarios / why |\n|---|---|---|---|\n", g.axis)
	}
	for _, e := range entries {
		var files []string
		for _, f := range e.files {
			files = append(files, "`"+f+"`")
		}
		detail := strings.Join(files, ", ")
		if e.why != "" {
			if detail != "" {
				detail += ": "
			}
			detail += strings.ReplaceAll(e.why, "|", `\|`)
		}
		if split {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", e.key.element, e.key.position, e.key.interrupting, statusMark[e.status], detail)
		} else {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.key.element, e.key.position, statusMark[e.status], detail)
		}
	}
	return b.String()
}

func renderMatrix(sections []string, tally map[string]int) string {
	var b strings.Builder
	b.WriteString("# BPMN conformance matrix\n")
	b.WriteString("Generated by `TestConformanceMatrix` (engine/runner/scenario_test.go) from engine/testdata/scenarios/scenarios.json and the scenario runs: do not edit.\n")
	b.WriteString("Regenerate: `go test ./engine/runner -run TestConformanceMatrix -update`\n\n")
	b.WriteString("Each row is an element in a position (events), a direction (gateways) or with a loop marker (activities). ")
	b.WriteString("✅ supported: every scenario of the row runs as BPMN 2.0 says. ")
	b.WriteString("⚠️ gap: the engine runs it but deviates, as said (the scenario is expected to fail until fixed). ")
	b.WriteString("🟡 partial: some scenarios run as BPMN says, the engine refuses the others with the problem quoted. ")
	b.WriteString("❌ unsupported: the engine refuses the deploy with the problem quoted. ")
	b.WriteString("— not in BPMN: the specification does not allow the combination.\n\n")
	var counts []string
	for _, st := range []string{rowSupported, rowGap, rowPartial, rowUnsupported, rowNotInBPMN} {
		counts = append(counts, fmt.Sprintf("%d %s", tally[st], st))
	}
	fmt.Fprintf(&b, "Rows: %s.\n\n", strings.Join(counts, ", "))
	b.WriteString(strings.Join(sections, "\n"))
	return b.String()
}

// firstDifference shows the first line where the file and the generated
// matrix differ.
func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := range max(len(h), len(w)) {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d:\n  file: %s\n  want: %s", i+1, hl, wl)
		}
	}
	return ""
}

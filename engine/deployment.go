package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
	"github.com/workflowpp/wfpp/engine/statemachine"
	"github.com/workflowpp/wfpp/engine/steps"
	"github.com/workflowpp/wfpp/gateways"
)

// deployment is a stored definition version, parsed and ready to run.
type deployment struct {
	rec   DefinitionRecord
	def   *model.Definition
	reach map[*model.Process]*gateways.Reachability
	joins map[*model.Process][]*policyJoin // processes with policy joins only (join_policy.go)
	// jobDetail is the detail of a job's first job.created event per node,
	// built once: event details are never changed, so they can be shared.
	jobDetail map[*model.Node]map[string]any
}

func (d *deployment) firstAttempt(n *model.Node) map[string]any {
	if m := d.jobDetail[n]; m != nil {
		return m
	}
	return map[string]any{"type": jobType(n), "attempt": 1}
}

// deployments caches parsed versions by id; the store is the truth.
type deployments struct {
	e    *Engine
	mu   sync.RWMutex
	byId map[string]*deployment
	// holding is the newest version holding each process id, for call
	// activities bound to the latest; filled from the store on first use
	// and kept by Deploy. Other replicas deploy too: a process it does not
	// hold fills it again, and in cluster mode so does a latest version in
	// the store's heads that differs from latest, each key's newest version
	// holding has seen.
	holding map[string]DefinitionRecord
	latest  map[string]int
}

func newDeployments(e *Engine) *deployments {
	return &deployments{e: e, byId: map[string]*deployment{}}
}

func (d *deployments) byID(ctx context.Context, id string) (*deployment, error) {
	d.mu.RLock()
	dep := d.byId[id]
	d.mu.RUnlock()
	if dep != nil {
		return dep, nil
	}
	rec, err := d.e.store.DefinitionByID(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("definition %s: %w", id, err)
	}
	return d.load(rec)
}

func (d *deployments) load(rec DefinitionRecord) (*deployment, error) {
	def, err := Parse(rec.Source, rec.Format)
	if err != nil {
		return nil, fmt.Errorf("parsing stored definition %s: %w", rec.ID, err)
	}
	dep := newDeployment(rec, def)
	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.byId[rec.ID]; old != nil {
		old.rec = rec
		return old, nil
	}
	d.byId[rec.ID] = dep
	return dep, nil
}

func newDeployment(rec DefinitionRecord, def *model.Definition) *deployment {
	dep := &deployment{
		rec: rec, def: def, reach: map[*model.Process]*gateways.Reachability{}, joins: map[*model.Process][]*policyJoin{},
		jobDetail: map[*model.Node]map[string]any{},
	}
	for _, p := range def.Processes {
		dep.reach[p] = gateways.NewReachability(p)
		if pj := policyJoinsOf(p); pj != nil {
			dep.joins[p] = pj
		}
		for _, n := range p.AllNodes {
			if n.Kind == model.KindServiceTask || n.Kind == model.KindScriptTask {
				dep.jobDetail[n] = map[string]any{"type": jobType(n), "attempt": 1}
			}
		}
	}
	return dep
}

// Format names accepted by Parse and Deploy; "" detects the format.
const (
	FormatBPMN  = string(model.FormatBPMN)
	FormatDAG   = string(model.FormatDAG)
	FormatGraph = string(model.FormatGraph)
	// FormatStateMachine is a type: state_machine document, JSON or YAML.
	FormatStateMachine = string(model.FormatStateMachine)
	FormatSteps        = string(model.FormatSteps)
)

// DetectFormat guesses the format of a definition from its first bytes.
func DetectFormat(src []byte) string {
	s := bytes.TrimSpace(src)
	switch {
	case bytes.HasPrefix(s, []byte("<")):
		return FormatBPMN
	case bytes.Contains(s, []byte(statemachine.TypeStateMachine)) && statemachine.Is(s):
		return FormatStateMachine
	case bytes.Contains(s, []byte(`"graphId"`)) || bytes.Contains(s, []byte("graphId:")):
		return FormatGraph
	case bytes.Contains(s, []byte(`"startNode"`)):
		return FormatDAG
	case steps.Detect(s): // state machines, which it matches too, are told apart above
		return FormatSteps
	}
	return FormatGraph
}

// Parse reads a definition in the given format ("" detects it) without
// validating its expressions; use Validate for that.
func Parse(src []byte, format string) (*model.Definition, error) {
	return parse(src, format, bpmn.Options{})
}

func parse(src []byte, format string, opts bpmn.Options) (*model.Definition, error) {
	if format == "" {
		format = DetectFormat(src)
	}
	switch format {
	case FormatBPMN:
		return bpmn.Parse(src, opts)
	case FormatDAG:
		return dag.Parse(src)
	case FormatGraph:
		return graph.Parse(src)
	case FormatStateMachine:
		return statemachine.Parse(src)
	case FormatSteps:
		return steps.Parse(src)
	}
	return nil, fmt.Errorf("unknown definition format %q: use bpmn, dag, graph, steps or state_machine", format)
}

// Validate reports every problem of a parsed definition, compiling its
// conditions, mappings, scripts and timers.
func Validate(def *model.Definition) model.Problems {
	probs := model.Validate(def, model.Checks{
		Expression: func(text string) error {
			_, err := compileExpr(text)
			return err
		},
		Value: func(text string) error {
			if script.IsTemplate(text) {
				return script.CompileTemplate(text)
			}
			_, err := compileExpr(text)
			return err
		},
		Script: func(format, src string) error {
			switch format {
			case "feel":
				_, err := script.CompileExpression(ensureFEEL(src))
				return err
			case "", "javascript":
				_, err := script.CompileScript(src)
				return err
			case model.ScriptExpression:
				_, err := compileExpr(src)
				return err
			}
			return fmt.Errorf("script format %q does not run: write the script in JavaScript", format)
		},
		Timer: CheckTimer,
	})
	return append(probs, validationProblems(def)...)
}

// ParseAndValidate parses and validates; the error is model.Problems when the
// definition has problems.
func ParseAndValidate(src []byte, format string) (*model.Definition, error) {
	return parseAndValidate(src, format, bpmn.Options{})
}

// ParseAndValidate parses and validates with the engine's limits on BPMN
// input (Config.BPMN).
func (e *Engine) ParseAndValidate(src []byte, format string) (*model.Definition, error) {
	return parseAndValidate(src, format, e.cfg.BPMN)
}

func parseAndValidate(src []byte, format string, opts bpmn.Options) (*model.Definition, error) {
	def, err := parse(src, format, opts)
	if err != nil {
		return nil, err
	}
	if probs := Validate(def); len(probs) > 0 {
		return def, probs
	}
	return def, nil
}

// DeployRequest is a definition to deploy.
type DeployRequest struct {
	Source   []byte
	Format   string // "" detects it
	Deployer string
	// Status is the new version's: VersionActive ("") or VersionDraft.
	Status VersionStatus
	// ChangeSummary says what changed, for those who read the versions.
	ChangeSummary string
	// KeepDefault leaves the default version where it is; otherwise a new
	// active version becomes the default.
	KeepDefault bool
}

// ChangeSummaryMax is the longest change summary a deployment may carry, in bytes.
const ChangeSummaryMax = 4000

// Deploy validates a definition and stores it as the next version of its key,
// unless the latest version has the same content, which is returned as it is
// (created false; its status and the default stay as they are, so a
// pipeline deploying the same file again undoes no rollback).
func (e *Engine) Deploy(ctx context.Context, req DeployRequest) (rec DefinitionRecord, created bool, err error) {
	status := cmp.Or(req.Status, VersionActive)
	if status != VersionActive && status != VersionDraft {
		return rec, false, fmt.Errorf("status %q: a version deploys as active or draft: %w", req.Status, ErrInvalidInput)
	}
	if len(req.ChangeSummary) > ChangeSummaryMax {
		return rec, false, fmt.Errorf("change summary has %d bytes: write at most %d: %w", len(req.ChangeSummary), ChangeSummaryMax, ErrInvalidInput)
	}
	format := req.Format
	if format == "" {
		format = DetectFormat(req.Source)
	}
	def, err := e.ParseAndValidate(req.Source, format)
	if err != nil {
		return rec, false, err
	}
	if err := e.checkForms(ctx, def); err != nil {
		return rec, false, err
	}
	sum := sha256.Sum256(req.Source)
	rec = DefinitionRecord{
		Key: def.Key, Name: def.Name, Format: format, Checksum: hex.EncodeToString(sum[:]),
		Source: bytes.Clone(req.Source), Enabled: true, Deployed: e.clock.Now(), Deployer: req.Deployer, // the caller's buffer may be reused
		Status: status, ChangeSummary: req.ChangeSummary,
		History: []VersionChange{{At: e.clock.Now(), By: req.Deployer, To: status}},
	}
	for _, p := range def.Processes {
		rec.Processes = append(rec.Processes, p.ID)
	}
	if main := def.Main(); main != nil {
		rec.VersionTag = main.VersionTag
	}
	saved, created, err := e.store.SaveDefinition(ctx, rec)
	if err != nil {
		return rec, false, fmt.Errorf("deploying %q: %w", def.Key, err)
	}
	e.defs.mu.Lock()
	if e.defs.byId[saved.ID] == nil {
		e.defs.byId[saved.ID] = newDeployment(saved, def)
	}
	if e.defs.holding != nil {
		e.defs.hold(saved)
	}
	e.defs.mu.Unlock()
	if created && status == VersionActive && !req.KeepDefault {
		if err := e.makeDefault(ctx, saved.Key, saved.Version, req.Deployer, "deployed"); err != nil {
			return saved, created, fmt.Errorf("deployed %s, but it is not the default version: make it the default again: %w", saved.ID, err)
		}
	}
	return saved, created, nil
}

// DefinitionID is the id of version v of key.
func DefinitionID(key string, version int) string { return key + ":" + strconv.Itoa(version) }

// Definition returns a deployed version (0: the latest) with its parsed model.
func (e *Engine) Definition(ctx context.Context, key string, version int) (DefinitionRecord, *model.Definition, error) {
	rec, err := e.store.Definition(ctx, key, version)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return rec, nil, fmt.Errorf("definition %q version %d: %w", key, version, err)
		}
		return rec, nil, err
	}
	dep, err := e.defs.byID(ctx, rec.ID)
	if err != nil {
		return rec, nil, err
	}
	return rec, dep.def, nil
}

// DefinitionByID returns a deployed version by its id with its parsed model.
func (e *Engine) DefinitionByID(ctx context.Context, id string) (DefinitionRecord, *model.Definition, error) {
	dep, err := e.defs.byID(ctx, id)
	if err != nil {
		return DefinitionRecord{}, nil, err
	}
	return dep.rec, dep.def, nil
}

// latestHolding returns the newest definition version that holds process
// pid: the one it is the main process of, else the newest deployed.
func (d *deployments) latestHolding(ctx context.Context, pid string) (DefinitionRecord, error) {
	if d.e.cfg.Cluster != nil {
		if err := d.forgetIfDeployedElsewhere(ctx); err != nil {
			return DefinitionRecord{}, err
		}
	}
	d.mu.RLock()
	rec, ok := d.holding[pid]
	d.mu.RUnlock()
	if ok {
		return rec, nil
	}
	// Never filled, or another replica may have deployed it since.
	recs, err := d.e.store.Definitions(ctx)
	if err != nil {
		return rec, err
	}
	d.mu.Lock()
	d.holding, d.latest = map[string]DefinitionRecord{}, map[string]int{}
	for _, r := range recs {
		d.hold(r)
	}
	rec, ok = d.holding[pid]
	d.mu.Unlock()
	if !ok {
		return rec, fmt.Errorf("no deployed definition holds process %q: deploy it, then retry the incident: %w", pid, ErrNotFound)
	}
	return rec, nil
}

// forgetIfDeployedElsewhere empties holding when the store's heads name a
// latest version it has not seen: another replica deployed.
func (d *deployments) forgetIfDeployedElsewhere(ctx context.Context) error {
	heads, err := d.e.store.DefinitionHeads(ctx)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range heads {
		if d.latest[h.Key] != h.Latest {
			d.holding, d.latest = nil, nil
			return nil
		}
	}
	return nil
}

// hold notes rec for the processes it holds where it is newer; under mu.
func (d *deployments) hold(rec DefinitionRecord) {
	d.latest[rec.Key] = max(d.latest[rec.Key], rec.Version)
	for _, pid := range rec.Processes {
		cur, ok := d.holding[pid]
		switch {
		case !ok, cur.Key == rec.Key && rec.Version > cur.Version:
		case cur.Key != rec.Key && cur.Key == pid:
			continue // the definition it is the main process of wins
		case cur.Key != rec.Key && (rec.Key == pid || rec.Deployed.After(cur.Deployed)):
		default:
			continue
		}
		rec.Source = nil // only the key and version are needed
		d.holding[pid] = rec
	}
}

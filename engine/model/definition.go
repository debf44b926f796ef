package model

// Format is the source format a definition was written in.
type Format string

const (
	FormatBPMN  Format = "bpmn"
	FormatDAG   Format = "dag"   // the JSON DAG format (DataWorkflows)
	FormatGraph Format = "graph" // the graph JSON/YAML format (Execution Engine)
	// FormatStateMachine is a type: state_machine document (advanced
	// features §11, JSON or YAML), read by package statemachine.
	FormatStateMachine Format = "state_machine"
	FormatSteps        Format = "steps" // the steps JSON/YAML format (advanced-features design)
)

// Definition is a parsed, linked process definition: what gets deployed.
type Definition struct {
	Key       string // what clients start: the main process id, DAG id or graphId
	Name      string
	Format    Format
	Processes []*Process
	Variables map[string]any // default variables every instance starts with
	// ReadModel is ReadModelDataWorkflows when the instances see the JSON
	// DAG's read model (trigger and context variables, {{ }} templates,
	// conditions that throw count as false): a JSON DAG, and a DAG saved as
	// BPMN (wf:readModel on its process). "" for the engine's own.
	ReadModel string
}

// ReadModelDataWorkflows is the read model of the DataWorkflows spec's JSON DAGs.
const ReadModelDataWorkflows = "dataworkflows"

// Process returns the process with the given id, or the main one for "".
func (d *Definition) Process(id string) *Process {
	if id == "" {
		return d.Main()
	}
	for _, p := range d.Processes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// Main is the process that runs when a client starts the definition: the one
// whose id is the key, else the first executable one. A definition whose
// processes are all non-executable (isExecutable="false": documentation) has
// none, and never runs.
func (d *Definition) Main() *Process {
	for _, p := range d.Processes {
		if p.ID == d.Key && p.Executable {
			return p
		}
	}
	for _, p := range d.Processes {
		if p.Executable {
			return p
		}
	}
	return nil
}

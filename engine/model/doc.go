// Package model is the one internal picture of a process definition.
//
// Every format Workflow++ reads (BPMN 2.0 XML, the JSON DAG format, the graph
// JSON/YAML format) is converted into a Definition; the engine runs only this.
//
// Rules:
//   - A Definition is immutable once built: the engine shares it between
//     instances and goroutines without locks. Build it with a Builder (or fill
//     the structs and call Link), then Validate it.
//   - Nodes and flows live in a Scope: the process itself, or an embedded
//     sub-process. Flows never cross scopes.
//   - Expressions and scripts are kept as text here; the engine compiles them.
//     Validate takes the compiler so the model does not depend on it.
//   - Every problem names the element it is about (Problem.ElementID).
package model

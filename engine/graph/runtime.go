package graph

import (
	"strconv"
	"strings"
)

// foreignTypes are the Execution Engine's node types for C# and PowerShell
// code. They are recognised so that they can be refused with a message that
// says how to rewrite them, like a Task in another language.
var foreignTypes = []string{"CSharpTask", "PowerShellTask"}

// rewrite says how a node that runs C# or PowerShell becomes one that runs.
const rewrite = "only JavaScript runs: make it a Task with configuration {language: JavaScript, script: ...} " +
	"(read variables by name, return the outputs as an object), or a Task with an actionType that a worker handles"

// foreign refuses a node that loads C# or PowerShell (a CSharpTask or
// PowerShellTask, a runtimeType other than JavaScript, or the fields that
// load code from assemblies, script files and modules), once, saying why.
func (c *converter) foreign(n *Node) bool {
	var what string
	if typ, ok := canonical(n.Type, foreignTypes); ok {
		what = "type " + typ + " does not run"
	}
	switch rt := n.RuntimeType; {
	case what != "":
	case rt != "" && !javaScriptNames[strings.ToLower(rt)] && !strings.EqualFold(rt, TypeSubflow):
		what = "runtimeType " + strconv.Quote(rt) + " does not run"
	case n.AssemblyPath != "" || n.TypeName != "":
		what = "compiled .NET nodes (assemblyPath, typeName) do not load"
	case n.ScriptPath != "" || n.RequiredModules != nil || n.ModulePaths != nil:
		what = "PowerShell script files and modules (scriptPath, requiredModules, modulePaths) do not load"
	default:
		return false
	}
	c.probs.Add(n.NodeID, "%s: %s", what, rewrite)
	return true
}

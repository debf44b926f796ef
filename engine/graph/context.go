package graph

import "regexp"

// The Execution Engine's scripts and expressions are C#, which reads
// variables as context.Variables["name"]. Graph expressions are
// JavaScript, where each variable is a name and all of them are the object
// "variables" (see package script), so the converter rewrites
// context.Variables into variables: context.Variables["files"] reads the
// variable files. It does so in conditions, Switch expressions, ForEach
// collections and Task scripts, where a name context would be a variable
// of that name otherwise. Assigning to it in a script is refused: scripts
// return their outputs.
var (
	contextVariables  = regexp.MustCompile(`(^|[^\w$.])context\.Variables\b`)
	contextAssignment = regexp.MustCompile(`(^|[^\w$.])context\.Variables\s*(\[[^\]]*\]|\.[\w$]+)\s*=[^=]`)
)

// jsVariables rewrites context.Variables into variables.
func jsVariables(text string) string {
	return contextVariables.ReplaceAllString(text, "${1}variables")
}

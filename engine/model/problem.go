package model

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a definition, about one element.
type Problem struct {
	ElementID string `json:"elementId"`
	Message   string `json:"message"`
}

func (p Problem) String() string {
	if p.ElementID == "" {
		return p.Message
	}
	return p.ElementID + ": " + p.Message
}

// Problems is the error a definition that does not validate returns.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d problem(s): %s", len(ps), strings.Join(lines, "; "))
}

// Add appends a problem about element id.
func (ps *Problems) Add(id, format string, args ...any) {
	*ps = append(*ps, Problem{ElementID: id, Message: fmt.Sprintf(format, args...)})
}

// Err returns ps as an error, or nil when there are none.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

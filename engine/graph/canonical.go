package graph

import "strings"

// canonical returns the name in names that s spells, ignoring case.
func canonical(s string, names []string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(s, n) {
			return n, true
		}
	}
	return "", false
}

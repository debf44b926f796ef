package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLargestVariable(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1000)
	for name, tc := range map[string]struct {
		body string
		want string
		n    int
	}{
		"string":        {`{"definition":"p","variables":{"a":1,"blob":"` + big + `","c":"y"}}`, "blob", 1002},
		"nested":        {` { "variables" : { "a" : {"k":["` + big + `",{"q":"}"}]} , "b":true } } `, "a", len(`{"k":["` + big + `",{"q":"}"}]}`)},
		"escapes":       {`{"variables":{"q\"uote":"a\"b\\","n":"` + big + `\""}}`, "n", 1004},
		"after others":  {`{"x":{"variables":{"no":"` + big + `"}},"variables":{"yes":2}}`, "yes", 1},
		"no variables":  {`{"definition":"` + big + `"}`, "", -1},
		"not an object": {`["variables"]`, "", -1},
		"truncated":     {`{"variables":{"a":"` + big, "", -1},
		"numbers":       {`{"variables":{"a":12345,"b":-1.5}}`, "a", 5},
	} {
		got, n := largestVariable([]byte(tc.body))
		require.Equal(t, tc.want, got, name)
		require.Equal(t, tc.n, n, name)
	}
}

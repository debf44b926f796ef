package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				if s != "" {
					b.WriteString(s + "\n")
				}
				continue
			}
			b.WriteString("line " + itoa(i) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		a, b string
		want string
	}{
		{"equal", "x\n", "x\n", ""},
		{
			"one change in the middle", lines(10, nil), lines(10, map[int]string{5: "five"}),
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8\n",
		},
		{
			"two hunks", lines(20, nil), lines(20, map[int]string{2: "two", 19: ""}),
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n@@ -16,5 +16,4 @@\n line 16\n line 17\n line 18\n-line 19\n line 20\n",
		},
		{"from empty", "", "a\nb\n", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, unifiedDiff("a", "b", tc.a, tc.b))
		})
	}
}

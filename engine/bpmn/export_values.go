package bpmn

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// How Export writes values in attributes and element text.

func falseUnless(b bool) string {
	if b {
		return ""
	}
	return "false"
}

func trueOrEmpty(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// positive writes a count that is set (above 0).
func positive(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// number writes a share or factor that is set (above 0).
func number(f float64) string {
	if f <= 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// backoffName is the name wf:backoff reads for b; "" for the default.
func backoffName(b model.Backoff) string {
	if b == model.BackoffExponential {
		return ""
	}
	for name, v := range model.Backoffs {
		if v == b && name != "" {
			return name
		}
	}
	return ""
}

// isoDuration writes a set duration (above 0) as ISO-8601 seconds, exactly:
// PT90S, PT0.25S.
func isoDuration(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	s, ns := d/time.Second, d%time.Second
	if ns == 0 {
		return fmt.Sprintf("PT%dS", s)
	}
	return fmt.Sprintf("PT%d.%sS", s, strings.TrimRight(fmt.Sprintf("%09d", ns), "0"))
}

// jsonText writes a value of a JSON document (parameters, variables) as
// JSON text; what cannot be JSON was not read from JSON, and is left out.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

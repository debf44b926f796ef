package bpmn_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "PT5S", want: 5 * time.Second},
		{in: "PT0S", want: 0},
		{in: "PT1M30S", want: 90 * time.Second},
		{in: "PT1H", want: time.Hour},
		{in: "P1D", want: 24 * time.Hour},
		{in: "P2W", want: 14 * 24 * time.Hour},
		{in: "P1DT2H3M4S", want: 26*time.Hour + 3*time.Minute + 4*time.Second},
		{in: "PT0.5S", want: 500 * time.Millisecond},
		{in: "PT1,25S", want: 1250 * time.Millisecond},
		{in: "PT1.5H", want: 90 * time.Minute},
		{in: "PT0.000000001S", want: time.Nanosecond},
		{in: "P1.5D", want: 36 * time.Hour},
		{in: "PT36H", want: 36 * time.Hour},
		{in: "P1Y", err: "years and months"},
		{in: "P1M", err: "years and months"},
		{in: "P1Y2M", err: "years and months"},
		{in: "", err: "not an ISO-8601 duration"},
		{in: "P", err: "not an ISO-8601 duration"},
		{in: "PT", err: "not an ISO-8601 duration"},
		{in: "P1DT", err: "not an ISO-8601 duration"},
		{in: "5s", err: "not an ISO-8601 duration"},
		{in: "-PT5S", err: "not an ISO-8601 duration"},
		{in: "pt5s", err: "not an ISO-8601 duration"},
		{in: "P1H", err: "not an ISO-8601 duration"},
		{in: "PT1D", err: "not an ISO-8601 duration"},
		{in: "PT5S1M", err: "not an ISO-8601 duration"},
		{in: "PT1S1S", err: "not an ISO-8601 duration"},
		{in: "PTT1S", err: "not an ISO-8601 duration"},
		{in: "PT.5S", err: "not an ISO-8601 duration"},
		{in: "PT5.S", err: "not an ISO-8601 duration"},
		{in: "PT5", err: "not an ISO-8601 duration"},
		{in: "PT1.5M30S", err: "only the last number"},
		{in: "P99999999999999999999D", err: "too long"},
		{in: "P300000D", err: "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := bpmn.ParseDuration(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				require.ErrorContains(t, err, `duration "`+tt.in+`"`)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT5S", "P1DT2H3M4.5S", "P2W", "PT1,5H"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := bpmn.ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v, negative", s, d)
		}
	})
}

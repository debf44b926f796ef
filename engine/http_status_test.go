package engine

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStatusFailure: which HTTP statuses retry, with the task's
// RetryOnStatus and without, and the code and delay they carry.
func TestStatusFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		retryOn    []int
		retried    bool
		after      time.Duration // the delay asked for; 0: the policy's
	}{
		{"429 retries", 429, "", nil, true, 0},
		{"503 retries after Retry-After", 503, "7", nil, true, 7 * time.Second},
		{"504 retries", 504, "", nil, true, 0},
		{"505 fails for good", 505, "", nil, false, 0},
		{"404 fails for good", 404, "", nil, false, 0},
		{"RetryOnStatus retries what it lists", 409, "2", []int{409, 503}, true, 2 * time.Second},
		{"RetryOnStatus leaves out the defaults it does not list", 429, "", []int{409}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tc.retryAfter != "" {
				h.Set("Retry-After", tc.retryAfter)
			}
			err := StatusFailure(tc.status, h, tc.retryOn, errors.New("answered"))
			require.Equal(t, "HTTP_"+strconv.Itoa(tc.status), errorCode(err))
			require.Equal(t, !tc.retried, errors.Is(err, errPermanent), "permanent")
			var ra *retryAfter
			if tc.after == 0 {
				require.False(t, errors.As(err, &ra), "no delay asked for")
				return
			}
			require.ErrorAs(t, err, &ra)
			require.Equal(t, tc.after, ra.after)
		})
	}
}

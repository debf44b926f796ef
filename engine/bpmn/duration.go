package bpmn

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ParseDuration reads an ISO-8601 duration of fixed length:
// P[nW][nD][T[nH][nM][nS]], e.g. PT5S, PT1M30.5S, P1DT12H. Any number may
// have a fraction (PT0.5S, PT1,5H). Years and months are rejected: their
// length depends on the calendar, and retry delays and timeouts need a fixed
// one. Negative durations are rejected too.
func ParseDuration(s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", s, err)
	}
	return d, nil
}

// maxDuration keeps a margin below math.MaxInt64 nanoseconds so that the
// float guard in parseDuration errs on the safe side.
const maxDuration = 9e18

var errDurationFormat = errors.New("not an ISO-8601 duration: write it like PT30S, PT5M or P1DT2H")

func parseDuration(s string) (time.Duration, error) {
	if len(s) < 3 || s[0] != 'P' {
		return 0, errDurationFormat
	}
	var (
		total   float64 // guards overflow; the result comes from exact below
		exact   time.Duration
		inTime  bool
		last    = -1 // index in units of the last designator seen, to keep them in order
		numbers = 0
	)
	units := []struct {
		designator byte
		time       bool
		d          time.Duration
	}{
		{'W', false, 7 * 24 * time.Hour},
		{'D', false, 24 * time.Hour},
		{'H', true, time.Hour},
		{'M', true, time.Minute},
		{'S', true, time.Second},
	}
	for i := 1; i < len(s); {
		if s[i] == 'T' {
			if inTime {
				return 0, errDurationFormat
			}
			inTime = true
			i++
			if i == len(s) {
				return 0, errDurationFormat // "PT" with nothing after
			}
			continue
		}
		whole, frac, scale, n := readNumber(s[i:])
		if n == 0 || i+n >= len(s) {
			return 0, errDurationFormat
		}
		i += n
		designator := s[i]
		i++
		if !inTime && (designator == 'Y' || designator == 'M') {
			return 0, errors.New("years and months have no fixed length: use weeks or days (P30D)")
		}
		u := -1
		for k, unit := range units {
			if unit.designator == designator && unit.time == inTime {
				u = k
			}
		}
		if u < 0 || u <= last {
			return 0, errDurationFormat
		}
		if frac != 0 && i != len(s) {
			return 0, errors.New("only the last number may have a fraction")
		}
		last = u
		numbers++
		unit := units[u].d
		total += (float64(whole) + float64(frac)/float64(scale)) * float64(unit)
		if whole < 0 || total > maxDuration {
			return 0, errors.New("too long: the longest is about 285 years")
		}
		exact += time.Duration(whole)*unit + time.Duration(math.Round(float64(frac)/float64(scale)*float64(unit)))
	}
	if numbers == 0 {
		return 0, errDurationFormat
	}
	return exact, nil
}

// readNumber reads digits with an optional fraction after '.' or ','. It
// returns the whole part, the fraction as frac/scale, and the bytes read (0 for
// none). A whole part too big for int64 comes back negative.
func readNumber(s string) (whole, frac, scale int64, n int) {
	scale = 1
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		if whole >= 0 {
			if whole > (math.MaxInt64-9)/10 {
				whole = -1
			} else {
				whole = whole*10 + int64(s[n]-'0')
			}
		}
		n++
	}
	if n == 0 {
		return 0, 0, 1, 0
	}
	if n < len(s) && (s[n] == '.' || s[n] == ',') {
		n++
		digits := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			if scale < 1e15 { // beyond nanoseconds of a week the digits do not matter
				frac = frac*10 + int64(s[n]-'0')
				scale *= 10
			}
			n++
			digits++
		}
		if digits == 0 {
			return 0, 0, 1, 0
		}
	}
	return whole, frac, scale, n
}

package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ISODuration is an ISO-8601 duration such as P1DT2H or P3M. Years, months
// and days are calendar units; they are added to a time, not converted.
type ISODuration struct {
	Years, Months, Days int
	Time                time.Duration // the T part, plus weeks as 7 days when given as PnW
}

// ParseISODuration parses PnYnMnDTnHnMnS and PnW (fractions on the smallest
// time unit allowed, e.g. PT1.5S).
func ParseISODuration(s string) (ISODuration, error) {
	var d ISODuration
	orig := s
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return d, fmt.Errorf("%q is not an ISO-8601 duration: write it like PT30S, PT5M, P1D", orig)
	}
	s = s[1:]
	inTime := false
	for s != "" {
		if s[0] == 'T' {
			if inTime {
				return d, fmt.Errorf("%q has two T separators", orig)
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == ',') {
			i++
		}
		if i == 0 || i == len(s) {
			return d, fmt.Errorf("%q is not an ISO-8601 duration: a number must come before each unit", orig)
		}
		num, err := strconv.ParseFloat(strings.ReplaceAll(s[:i], ",", "."), 64)
		if err != nil {
			return d, fmt.Errorf("%q: bad number %q", orig, s[:i])
		}
		unit := s[i]
		s = s[i+1:]
		whole := num == float64(int(num))
		switch {
		case !inTime && unit == 'Y' && whole:
			d.Years += int(num)
		case !inTime && unit == 'M' && whole:
			d.Months += int(num)
		case !inTime && unit == 'W':
			d.Time += time.Duration(num * 7 * 24 * float64(time.Hour))
		case !inTime && unit == 'D' && whole:
			d.Days += int(num)
		case inTime && unit == 'H':
			d.Time += time.Duration(num * float64(time.Hour))
		case inTime && unit == 'M':
			d.Time += time.Duration(num * float64(time.Minute))
		case inTime && unit == 'S':
			d.Time += time.Duration(num * float64(time.Second))
		default:
			return d, fmt.Errorf("%q is not an ISO-8601 duration: unexpected %q", orig, string(unit))
		}
	}
	return d, nil
}

// AddTo returns t plus the duration.
func (d ISODuration) AddTo(t time.Time) time.Time {
	return t.AddDate(d.Years, d.Months, d.Days).Add(d.Time)
}

// Fixed returns the duration as a time.Duration when it has no calendar
// units (years, months), counting days as 24 hours.
func (d ISODuration) Fixed() (time.Duration, bool) {
	if d.Years != 0 || d.Months != 0 {
		return 0, false
	}
	return d.Time + time.Duration(d.Days)*24*time.Hour, true
}

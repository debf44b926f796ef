package model

// TimerKind is how a timer definition says when it fires.
type TimerKind uint8

const (
	TimerDuration TimerKind = iota + 1 // ISO-8601 duration, e.g. PT5M
	TimerDate                          // ISO-8601 date-time, e.g. 2026-01-02T10:00:00Z
	TimerCycle                         // ISO-8601 repetition (R3/PT10M) or a cron expression
)

func (k TimerKind) String() string {
	switch k {
	case TimerDuration:
		return "timeDuration"
	case TimerDate:
		return "timeDate"
	case TimerCycle:
		return "timeCycle"
	}
	return "unknown"
}

// Timer is a timer event definition. Expr may be an expression (=expr, ${expr})
// evaluated when the timer is armed.
type Timer struct {
	Kind     TimerKind
	Expr     string
	TimeZone string // IANA zone for cron cycles; empty means UTC
}

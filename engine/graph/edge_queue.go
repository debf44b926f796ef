package graph

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// queueSettings applies an edge's maxRetries and visibilityTimeout. In the
// Execution Engine an edge delivers its source's message into the target's
// queue, and these are that queue's settings for the target's work: how
// often a failed attempt runs again, and how long one attempt holds its
// lease. Here they are the target Task's retries (RetryPolicy.Retries) and
// its job timeout (Job.Timeout, which is also its node queue's visibility
// timeout). Only Tasks run work, so only edges into Tasks take them, and the
// Task takes them once: from one edge, or its own configuration.
func (c *converter) queueSettings(dst *step, e edge) {
	if e.MaxRetries == nil && e.VisibilityTimeout == nil {
		return
	}
	id := dst.g.NodeID
	cfg, ok := dst.cfg.(*TaskConfig)
	switch {
	case dst.refused:
		return
	case !ok:
		c.probs.Add(id, "%s: maxRetries and visibilityTimeout set how a Task's work runs, and %q is a %s: remove them", e, id, dst.typ)
		return
	case dst.queue != nil:
		c.probs.Add(id, "%s and %s both set maxRetries or visibilityTimeout of %q: set them on one edge", *dst.queue, e, id)
		return
	}
	dst.queue = &e
	if r := e.MaxRetries; r != nil {
		switch {
		case *r < 0:
			c.probs.Add(id, "%s: maxRetries is %d: count the retries after the first attempt (0 or more)", e, *r)
		case cfg.Retry != nil:
			c.probs.Add(id, "%s: maxRetries and the Task's configuration.retry both say how often it runs: keep one", e)
		case *r == 0:
			dst.node.Retry.Retries = model.NoRetries
		default:
			dst.node.Retry.Retries = *r
		}
	}
	if e.VisibilityTimeout != nil {
		d, err := timeSpan(e.VisibilityTimeout)
		switch {
		case err != nil:
			c.probs.Add(id, "%s: visibilityTimeout: %v", e, err)
		case cfg.TimeoutMs > 0:
			c.probs.Add(id, "%s: visibilityTimeout and the Task's configuration.timeoutMs both bound an attempt: keep one", e)
		default:
			dst.node.Job.Timeout = d
		}
	}
}

// maxTimeSpanDays keeps a TimeSpan within what time.Duration holds.
const maxTimeSpanDays = 100_000

// timeSpanText is .NET's TimeSpan: [d.]hh:mm:ss[.fffffff].
var timeSpanText = regexp.MustCompile(`^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$`)

// timeSpan reads a positive duration written as a TimeSpan (00:10:00) or
// an ISO-8601 duration (PT10M).
func timeSpan(v any) (time.Duration, error) {
	text, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("%v is not text: write a TimeSpan (00:10:00) or an ISO-8601 duration (PT10M)", v)
	}
	text = strings.TrimSpace(text)
	var d time.Duration
	if m := timeSpanText.FindStringSubmatch(text); m != nil {
		days := 0
		if m[1] != "" {
			var err error
			if days, err = strconv.Atoi(m[1]); err != nil || days > maxTimeSpanDays {
				return 0, fmt.Errorf("%q: %s days is more than %d", text, m[1], maxTimeSpanDays)
			}
		}
		hours, _ := strconv.Atoi(m[2])
		minutes, _ := strconv.Atoi(m[3])
		seconds, _ := strconv.Atoi(m[4])
		if hours > 23 || minutes > 59 || seconds > 59 {
			return 0, fmt.Errorf("%q is out of range: hours 0-23, minutes and seconds 0-59", text)
		}
		frac, _ := strconv.ParseFloat("0."+m[5]+"0", 64)
		d = time.Duration(days)*24*time.Hour + time.Duration(hours)*time.Hour + time.Duration(minutes)*time.Minute +
			time.Duration(seconds)*time.Second + time.Duration(frac*float64(time.Second))
	} else {
		iso, err := model.ParseISODuration(text)
		if err != nil {
			return 0, fmt.Errorf("%q is neither a TimeSpan (00:10:00) nor an ISO-8601 duration (PT10M)", text)
		}
		fixed, ok := iso.Fixed()
		if !ok {
			return 0, fmt.Errorf("%q counts years or months, whose length varies: write days or hours", text)
		}
		d = fixed
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not above zero: give the time an attempt may take", text)
	}
	return d, nil
}

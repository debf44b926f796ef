package bpmn

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// wfAttributes are our attributes on flow nodes, each with how it is read.
var wfAttributes = map[string]func(x *extension, v string){
	"type": func(x *extension, v string) { x.n.Job.Type = v },
	"retries": func(x *extension, v string) {
		r, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || r < 0 {
			x.problem("wf:retries %q is not a whole number of retries after the first attempt: write e.g. 3, or 0 for none", v)
			return
		}
		x.n.Retry.Retries = r
		if r == 0 {
			x.n.Retry.Retries = model.NoRetries
		}
	},
	"backoff": func(x *extension, v string) {
		b, ok := model.Backoffs[strings.ToLower(strings.TrimSpace(v))]
		if !ok || v == "" {
			x.problem("wf:backoff %q is not a backoff: write fixed, linear, exponential or immediate", v)
			return
		}
		x.n.Retry.Backoff = b
	},
	"retryDelay": func(x *extension, v string) { x.duration("wf:retryDelay", v, &x.n.Retry.Delay) },
	"maxDelay":   func(x *extension, v string) { x.duration("wf:maxDelay", v, &x.n.Retry.MaxDelay) },
	"timeout":    func(x *extension, v string) { x.duration("wf:timeout", v, &x.n.Job.Timeout) },
	"jitter": func(x *extension, v string) {
		j, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(j >= 0 && j <= 1) {
			x.problem("wf:jitter %q is not a share between 0 and 1: write e.g. 0.1", v)
			return
		}
		if j == 0 {
			j = model.NoJitter
		}
		x.n.Retry.Jitter = j
	},
	"retryOn":      func(x *extension, v string) { x.n.Retry.RetryOn = splitList(v) },
	"doNotRetryOn": func(x *extension, v string) { x.n.Retry.DoNotRetryOn = splitList(v) },

	"backoffFactor": readBackoffFactor, // wf_limits.go
	"retryOnStatus": readRetryOnStatus,

	"concurrency": func(x *extension, v string) {
		c, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || c < 1 {
			x.problem("wf:concurrency %q is not a positive whole number: write how many jobs may run at once, e.g. 4", v)
			return
		}
		x.n.Job.Concurrency = c
	},
	"rateLimit": func(x *extension, v string) {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(r > 0) {
			x.problem("wf:rateLimit %q is not a positive number: write how many jobs may start per second, e.g. 50", v)
			return
		}
		x.n.Job.RateLimit = r
	},
	"assignee":        func(x *extension, v string) { x.n.Human.Assignee = v },
	"candidateUsers":  func(x *extension, v string) { x.n.Human.CandidateUsers = splitList(v) },
	"candidateGroups": func(x *extension, v string) { x.n.Human.CandidateGroups = splitList(v) },
	"formKey":         func(x *extension, v string) { x.n.Human.FormKey = v },
	"priority":        func(x *extension, v string) { x.n.Human.Priority, x.n.Job.Priority = v, v },
	"dueDate":         func(x *extension, v string) { x.n.Human.DueDate = v },
	"followUpDate":    func(x *extension, v string) { x.n.Human.FollowUpDate = v },
	"inboxVariables": func(x *extension, v string) {
		names := splitList(v)
		if len(names) > 3 {
			x.problem("wf:inboxVariables names %d variables: the inbox shows at most 3, choose them", len(names))
			return
		}
		x.n.Human.InboxVariables = names
	},
	"resultVariable": func(x *extension, v string) { x.resultVariable(v) },

	"cacheKey": func(x *extension, v string) { x.cacheKey(v) }, // cache.go
	"cacheTtl": func(x *extension, v string) {
		if c := x.cacheTuned("wf:cacheTtl"); c != nil {
			x.duration("wf:cacheTtl", v, &c.TTL)
		}
	},
	"cacheCondition": func(x *extension, v string) {
		if c := x.cacheTuned("wf:cacheCondition"); c != nil {
			c.Condition = v
		}
	},
	"cacheScope": func(x *extension, v string) { x.cacheScope(v) },

	"circuitBreaker": func(x *extension, v string) { x.circuitBreaker(v) },
	"circuitFailureThreshold": func(x *extension, v string) {
		x.circuitCount("wf:circuitFailureThreshold", v, "how many failures in a row open the breaker",
			func(c *model.CircuitPolicy) *int { return &c.FailureThreshold })
	},
	"circuitFailureRate": func(x *extension, v string) { x.circuitFailureRate(v) },
	"circuitMinCalls": func(x *extension, v string) {
		x.circuitCount("wf:circuitMinCalls", v, "how many calls in the window the failure rate needs",
			func(c *model.CircuitPolicy) *int { return &c.MinCalls })
	},
	"circuitWindow": func(x *extension, v string) {
		x.circuitDuration("wf:circuitWindow", v, func(c *model.CircuitPolicy) *time.Duration { return &c.Window })
	},
	"circuitOpenTimeout": func(x *extension, v string) {
		x.circuitDuration("wf:circuitOpenTimeout", v, func(c *model.CircuitPolicy) *time.Duration { return &c.OpenTimeout })
	},
	"circuitHalfOpenCalls": func(x *extension, v string) {
		x.circuitCount("wf:circuitHalfOpenCalls", v, "how many probes run half-open and must succeed to close it",
			func(c *model.CircuitPolicy) *int { return &c.HalfOpenCalls })
	},
	"correlationKey": func(x *extension, v string) {
		if x.n.Message == nil {
			x.problem("wf:correlationKey needs a message: reference one with messageRef")
			return
		}
		x.n.Message.CorrelationKey = v
	},
	"joinPolicy":          readJoinPolicy,
	"joinN":               readJoinN,
	"branchTimeout":       func(x *extension, v string) { x.duration("wf:branchTimeout", v, &x.joinPolicy().BranchTimeout) },
	"cancelRemaining":     readCancelRemaining,
	"joinResultsVariable": func(x *extension, v string) { x.joinPolicy().ResultsVariable = strings.TrimSpace(v) },
	"schema":              func(x *extension, v string) { x.validationSchema(v) }, // validation.go
	"validationMode":      validationAttr("mode"),
	"validationTarget":    validationAttr("target"),
	"webhook":             func(x *extension, v string) { x.webhook(v) }, // webhook.go
	"webhookFilter":       func(x *extension, v string) { x.webhookFilter(v) },
	"webhookMultiUse":     func(x *extension, v string) { x.webhookMultiUse(v) },
}

// wf reads our extensions: wf: attributes on the element, and wf:input,
// wf:output, wf:header, wf:parameters and wf:form in its extensionElements. Unknown wf:
// names are reported: in our own namespace they are typos.
func (x *extension) wf() {
	for _, a := range x.e.attrs {
		if a.Name.Space != nsWF || a.Value == "" {
			continue
		}
		read, ok := wfAttributes[a.Name.Local]
		if !ok {
			x.problem("unknown attribute wf:%s: see the wf: schema for the attributes a task takes", a.Name.Local)
			continue
		}
		read(x, a.Value)
	}
	var in, out []model.Mapping
	headers := map[string]string{}
	for _, el := range x.e.extensions(nsWF) {
		switch el.name.Local {
		case "input":
			in = append(in, model.Mapping{Source: el.attr("", "source"), Target: el.attr("", "target")})
		case "output":
			out = append(out, model.Mapping{Source: el.attr("", "source"), Target: el.attr("", "target")})
		case "header":
			headers[el.attr("", "key")] = el.attr("", "value")
		case "form":
			x.n.Human.Form = el.trimmed()
		case "parameters":
			x.parameters(el.trimmed())
		case "schema":
			x.validationSchema(el.trimmed())
		case "rule":
			x.validationRule(el)
		default:
			x.problem("unknown element wf:%s: use wf:input, wf:output, wf:header, wf:parameters, wf:form, or wf:schema and wf:rule", el.name.Local)
		}
	}
	if len(in) > 0 {
		x.n.Inputs = in
	}
	if len(out) > 0 {
		x.n.Outputs = out
	}
	x.mergeHeaders(headers)
	x.validationStep()
}

// parameters reads wf:parameters, a JSON object: the parameters of the
// job, as a JSON DAG node or a graph Task gives its handler (values may
// hold templates). BPMN has no other place for them; Export writes them.
func (x *extension) parameters(text string) {
	params, err := jsonObject(text)
	if err != nil {
		x.problem("wf:parameters is not a JSON object (%v): write the job's parameters as {\"name\": value, ...}", err)
		return
	}
	x.n.Job.Parameters = params
}

// jsonObject reads JSON text that must be an object.
func jsonObject(text string) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal([]byte(text), &m)
	if err == nil && m == nil {
		err = errors.New("it is null")
	}
	return m, err
}

// duration reads an ISO-8601 duration attribute into *dst.
func (x *extension) duration(attr, v string, dst *time.Duration) {
	d, err := ParseDuration(strings.TrimSpace(v))
	if err != nil {
		x.problem("%s: %v", attr, err)
		return
	}
	*dst = d
}

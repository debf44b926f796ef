package steps

import (
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// checkResilience reports what is wrong with an agent step's retry,
// circuit_breaker and cache.
func (c *converter) checkResilience(st *Step) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	if r := st.Retry; r != nil {
		if _, ok := backoff(r); !ok {
			bad("retry: strategy %q is not exponential_backoff, fixed_delay, linear_backoff or immediate: use one of them", cmpOr(r.Strategy, r.Type))
		}
		if r.Strategy != "" && r.Type != "" && r.Strategy != r.Type {
			bad("retry: strategy %q and type %q differ: keep one", r.Strategy, r.Type)
		}
		if r.MaxRetries != nil && *r.MaxRetries < 0 {
			bad("retry.max_retries is negative: count the retries after the first attempt, 0 or more")
		}
		if r.InitialDelayMs < 0 || r.MaxDelayMs < 0 {
			bad("retry: delays are negative: use milliseconds, 0 or more")
		}
		if r.BackoffMultiplier != 0 && r.BackoffMultiplier < 1 {
			bad("retry.backoff_multiplier is %v: each delay grows by it, so use 1 or more", r.BackoffMultiplier)
		}
		for _, code := range r.RetryOnStatusCodes {
			if code < 100 || code > 599 {
				bad("retry.retry_on_status_codes holds %d, not an HTTP status: use codes from 100 to 599", code)
			}
		}
	}
	if cb := st.CircuitBreaker; cb != nil {
		if cb.FailureThreshold < 0 || cb.MinCalls < 0 || cb.HalfOpenMaxCalls < 0 || cb.TimeoutSeconds < 0 || cb.WindowSizeSeconds < 0 {
			bad("circuit_breaker: counts and durations are negative: use 0 (the default) or more")
		}
		if cb.FailureRateThreshold < 0 || cb.FailureRateThreshold > 1 {
			bad("circuit_breaker.failure_rate_threshold %v is not a share between 0 and 1: write e.g. 0.5", cb.FailureRateThreshold)
		}
	}
	if ca := st.Cache; ca != nil && (ca.Enabled == nil || *ca.Enabled) {
		if ca.Key == "" {
			bad("cache needs key, a template of what makes two calls the same (${customerId}): set it")
		}
		if ca.TTLSeconds < 0 {
			bad("cache.ttl_seconds is negative: use seconds, 0 (the design's 3600) or more")
		}
		if _, ok := cacheScopes[strings.ToLower(ca.Scope)]; !ok {
			bad("cache.scope %q is not global, workflow (the default) or instance: use one of them", ca.Scope)
		}
	}
}

// backoff reads a retry strategy by the design's names, or the engine's.
func backoff(r *Retry) (model.Backoff, bool) {
	name := strings.ToLower(cmpOr(r.Strategy, r.Type))
	name = strings.TrimSuffix(strings.TrimSuffix(name, "_backoff"), "_delay")
	b, ok := model.Backoffs[name]
	return b, ok
}

// retry converts an agent step's retry into its RetryPolicy: max_retries
// counts the retries after the first attempt (0: none); without retry the
// engine's defaults apply.
func (c *converter) retry(st *Step) model.RetryPolicy {
	r := st.Retry
	if r == nil {
		return model.RetryPolicy{}
	}
	b, _ := backoff(r)
	p := model.RetryPolicy{
		Backoff:       b,
		Delay:         time.Duration(r.InitialDelayMs) * time.Millisecond,
		MaxDelay:      time.Duration(r.MaxDelayMs) * time.Millisecond,
		Factor:        r.BackoffMultiplier,
		RetryOn:       r.RetryOnErrors,
		RetryOnStatus: r.RetryOnStatusCodes,
	}
	if r.MaxRetries != nil {
		p.Retries = *r.MaxRetries
		if p.Retries == 0 {
			p.Retries = model.NoRetries
		}
	}
	if r.Jitter != nil && !*r.Jitter {
		p.Jitter = model.NoJitter
	}
	return p
}

// circuit converts an agent step's circuit_breaker (nil when absent or
// enabled: false). Its breaker is shared by the steps of the same
// agent_name, the design's breaker per agent, unless key says otherwise.
func (c *converter) circuit(st *Step) *model.CircuitPolicy {
	cb := st.CircuitBreaker
	if cb == nil || cb.Enabled != nil && !*cb.Enabled {
		return nil
	}
	return &model.CircuitPolicy{
		Key:              cb.Key,
		FailureThreshold: cb.FailureThreshold,
		FailureRate:      cb.FailureRateThreshold,
		MinCalls:         cb.MinCalls,
		Window:           time.Duration(cb.WindowSizeSeconds) * time.Second,
		OpenTimeout:      time.Duration(cb.TimeoutSeconds) * time.Second,
		HalfOpenCalls:    cb.HalfOpenMaxCalls,
	}
}

// cacheScopes maps the design's cache scopes onto the model's: workflow is
// the definition.
var cacheScopes = map[string]string{
	"":           model.CacheDefinition,
	"workflow":   model.CacheDefinition,
	"definition": model.CacheDefinition,
	"global":     model.CacheGlobal,
	"instance":   model.CacheInstance,
}

// cacheTTLDefault is the design's cache_ttl_seconds default.
const cacheTTLDefault = time.Hour

// cache converts an agent step's cache (nil when absent or enabled: false).
func (c *converter) cache(st *Step, r refs) *model.CachePolicy {
	ca := st.Cache
	if ca == nil || ca.Enabled != nil && !*ca.Enabled {
		return nil
	}
	ttl := time.Duration(ca.TTLSeconds) * time.Second
	if ttl == 0 {
		ttl = cacheTTLDefault
	}
	return &model.CachePolicy{Key: ca.Key, TTL: ttl, Condition: r.condition(ca.Condition), Scope: cacheScopes[strings.ToLower(ca.Scope)]}
}

func seconds(s *int) time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(*s) * time.Second
}

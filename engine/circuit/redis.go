package circuit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/workflowpp/wfpp/engine/clock"
	"github.com/workflowpp/wfpp/engine/model"
)

// Defaults for RedisConfig.
const (
	RedisPrefixDefault     = "wfpp:circuit:"
	RedisOpTimeoutDefault  = 100 * time.Millisecond
	RedisRetryAfterDefault = time.Second
)

// RedisConfig configures a Redis store. The zero value of each field but
// Client means its default.
type RedisConfig struct {
	Client redis.UniversalClient // required; wfpp serve shares the cache's
	Clock  clock.Clock           // the engine's; default the wall clock
	Prefix string                // of its keys
	// OpTimeout bounds each Redis call.
	OpTimeout time.Duration
	// RetryAfter is how long after a failed call the replica judges by
	// breakers of its own before it asks Redis again.
	RetryAfter time.Duration
	Logger     *slog.Logger
}

// WithDefaults returns c with every unset field at its default.
func (c RedisConfig) WithDefaults() RedisConfig {
	c.Clock = cmp.Or[clock.Clock](c.Clock, clock.Real{})
	c.Prefix = cmp.Or(c.Prefix, RedisPrefixDefault)
	c.OpTimeout = cmp.Or(c.OpTimeout, RedisOpTimeoutDefault)
	c.RetryAfter = cmp.Or(c.RetryAfter, RedisRetryAfterDefault)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c RedisConfig) validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("circuit redis config: Client is required"))
	}
	if c.OpTimeout < 0 || c.RetryAfter < 0 {
		errs = append(errs, errors.New("circuit redis config: OpTimeout and RetryAfter must not be negative"))
	}
	return errors.Join(errs...)
}

// Redis keeps the breakers in Redis, shared by every replica: per key a
// hash with the state (<prefix>b:<key>), a hash with the window's buckets
// (<prefix>w:<key>, expiring after two windows) and the set of keys
// (<prefix>keys). Each Allow, Record and Reset is one script, atomic in
// Redis. When Redis fails, the replica judges by breakers of its own (a
// Local) for RetryAfter, then asks Redis again; outcomes of calls admitted
// meanwhile do not count in Redis.
type Redis struct {
	cfg   RedisConfig
	local *Local
	// downUntil is when (Unix ms, wall clock) Redis is asked again;
	// lastLog when a failure was last logged.
	downUntil, lastLog atomic.Int64
}

var _ Store = (*Redis)(nil)

// NewRedis returns a store on cfg.Client.
func NewRedis(cfg RedisConfig) (*Redis, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Redis{cfg: cfg, local: NewLocal(cfg.Clock)}, nil
}

// breakerScript runs the rules of breaker.allow, record and reset on
// KEYS[1] (the state), KEYS[2] (the window) and KEYS[3] (the key set).
// ARGV: op, key, now (ms), gen, failed (1/0), failureThreshold,
// failureRate, minCalls, window (ms), openTimeout (ms), halfOpenCalls,
// policy (JSON). It returns {allowed, gen, from (-1: no change, -2: no
// such breaker), state}.
var breakerScript = redis.NewScript(`
local op, key, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local threshold, rate, minCalls = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local windowMs, openTimeout, halfOpenCalls = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local h = redis.call('HMGET', KEYS[1], 'state', 'gen', 'since', 'opened', 'failures', 'admitted', 'successes')
if op == 'reset' and not h[2] then return {0, 0, -2, 0} end
if op == 'allow' and h[2] and tonumber(h[1]) == 0 then return {1, tonumber(h[2]), -1, 0} end
local state, gen, since, opened = tonumber(h[1]) or 0, tonumber(h[2]) or 0, tonumber(h[3]) or 0, tonumber(h[4]) or 0
local failures, admitted, successes = tonumber(h[5]) or 0, tonumber(h[6]) or 0, tonumber(h[7]) or 0
local from = -1
local function move(to)
  if from < 0 then from = state end
  state, gen, since = to, gen + 1, now
  failures, admitted, successes = 0, 0, 0
  if to == 1 then opened = now elseif to == 0 then opened = 0 end
  redis.call('DEL', KEYS[2])
end
local allowed = 0
if op == 'allow' then
  if state == 0 then
    allowed = 1
  else
    if state == 1 and now - since >= openTimeout then move(2) end
    if state == 2 then
      if admitted >= halfOpenCalls and now - since >= openTimeout then
        gen, since, admitted, successes = gen + 1, now, 0, 0
      end
      if admitted < halfOpenCalls then
        admitted = admitted + 1
        allowed = 1
      end
    end
  end
elseif op == 'record' and tonumber(ARGV[4]) == gen then
  local failed = ARGV[5] == '1'
  if state == 0 then
    local b = math.floor(now / math.max(math.floor(windowMs / 10), 1))
    redis.call('HINCRBY', KEYS[2], 'c' .. b, 1)
    if failed then redis.call('HINCRBY', KEYS[2], 'f' .. b, 1) end
    redis.call('PEXPIRE', KEYS[2], 2 * windowMs)
    if failed then
      failures = failures + 1
      local calls, fails = 0, 0
      local w = redis.call('HGETALL', KEYS[2])
      for i = 1, #w, 2 do
        if tonumber(string.sub(w[i], 2)) <= b - 10 then
          redis.call('HDEL', KEYS[2], w[i])
        elseif string.sub(w[i], 1, 1) == 'c' then
          calls = calls + tonumber(w[i + 1])
        else
          fails = fails + tonumber(w[i + 1])
        end
      end
      if failures >= threshold or (calls >= minCalls and fails / calls >= rate) then move(1) end
    else
      failures = 0
    end
  elseif state == 2 then
    if failed then
      move(1)
    else
      successes = successes + 1
      if successes >= halfOpenCalls then move(0) end
    end
  end
elseif op == 'reset' then
  if state ~= 0 then
    move(0)
  else
    failures = 0
    redis.call('DEL', KEYS[2])
  end
end
redis.call('HSET', KEYS[1], 'state', state, 'gen', gen, 'since', since, 'opened', opened,
  'failures', failures, 'admitted', admitted, 'successes', successes)
if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'policy', ARGV[12]) end
redis.call('SADD', KEYS[3], key)
return {allowed, gen, from, state}`)

func (r *Redis) stateKey(key string) string  { return r.cfg.Prefix + "b:" + key }
func (r *Redis) windowKey(key string) string { return r.cfg.Prefix + "w:" + key }
func (r *Redis) keysKey() string             { return r.cfg.Prefix + "keys" }

// run runs the script; the zero policy passes no thresholds (reset).
func (r *Redis) run(ctx context.Context, op, key string, p model.CircuitPolicy, gen uint64, failed bool) (allowed bool, newGen uint64, ch Change, err error) {
	now := r.cfg.Clock.Now()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	policy := ""
	if p != (model.CircuitPolicy{}) {
		b, _ := json.Marshal(p) // plain numbers and strings: never fails
		policy = string(b)
	}
	res, err := breakerScript.Run(ctx, r.cfg.Client, []string{r.stateKey(key), r.windowKey(key), r.keysKey()},
		op, key, now.UnixMilli(), gen, boolArg(failed), p.FailureThreshold, strconv.FormatFloat(p.FailureRate, 'g', -1, 64),
		p.MinCalls, p.Window.Milliseconds(), p.OpenTimeout.Milliseconds(), p.HalfOpenCalls, policy).Int64Slice()
	if err != nil {
		return false, 0, Change{}, err
	}
	if len(res) != 4 {
		return false, 0, Change{}, fmt.Errorf("circuit script answered %v", res)
	}
	switch from := res[2]; from {
	case -2:
		return false, 0, Change{}, ErrNotFound
	case -1:
	default:
		ch = Change{Key: key, From: State(from), To: State(res[3]), At: now}
	}
	return res[0] == 1, uint64(res[1]), ch, nil
}

func boolArg(b bool) int {
	if b {
		return 1
	}
	return 0
}

// up reports whether Redis is to be asked (not within RetryAfter of a failure).
func (r *Redis) up() bool { return time.Now().UnixMilli() >= r.downUntil.Load() }

// fail notes a failed call: the replica judges alone for RetryAfter. It
// logs at most once a minute.
func (r *Redis) fail(err error) {
	now := time.Now()
	r.downUntil.Store(now.Add(r.cfg.RetryAfter).UnixMilli())
	if last := r.lastLog.Load(); now.UnixMilli()-last >= time.Minute.Milliseconds() && r.lastLog.CompareAndSwap(last, now.UnixMilli()) {
		r.cfg.Logger.Warn("circuit breakers: redis unavailable, this replica judges by breakers of its own meanwhile", "err", err)
	}
}

func (r *Redis) Allow(ctx context.Context, key string, p model.CircuitPolicy) (Decision, error) {
	if r.up() {
		allowed, gen, ch, err := r.run(ctx, "allow", key, p, 0, false)
		if err == nil {
			return Decision{Allowed: allowed, Ticket: Ticket{Key: key, Gen: gen}, Change: ch}, nil
		}
		r.fail(err)
	}
	return r.local.Allow(ctx, key, p)
}

// Record counts the outcome where the call was admitted: in Redis, or in
// the replica's own breaker when Redis was down then.
func (r *Redis) Record(ctx context.Context, t Ticket, p model.CircuitPolicy, failed bool) (Change, error) {
	if t.local != nil {
		return r.local.Record(ctx, t, p, failed)
	}
	_, _, ch, err := r.run(ctx, "record", t.Key, p, t.Gen, failed)
	if err != nil {
		r.fail(err) // the outcome is lost; the next calls judge locally
	}
	return ch, nil
}

func (r *Redis) Reset(ctx context.Context, key string) (Change, error) {
	_, _ = r.local.Reset(ctx, key) // what this replica judged by while Redis was down
	_, _, ch, err := r.run(ctx, "reset", key, model.CircuitPolicy{}, 0, false)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Change{}, fmt.Errorf("resetting circuit breaker %q in redis: %w", key, err)
	}
	return ch, err
}

func (r *Redis) Statuses(ctx context.Context) ([]Status, error) {
	now := r.cfg.Clock.Now()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	keys, err := r.cfg.Client.SMembers(ctx, r.keysKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("listing circuit breakers in redis: %w", err)
	}
	pipe := r.cfg.Client.Pipeline()
	states := make([]*redis.MapStringStringCmd, len(keys))
	windows := make([]*redis.MapStringStringCmd, len(keys))
	for i, k := range keys {
		states[i] = pipe.HGetAll(ctx, r.stateKey(k))
		windows[i] = pipe.HGetAll(ctx, r.windowKey(k))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("reading circuit breakers from redis: %w", err)
	}
	out := make([]Status, 0, len(keys))
	for i, k := range keys {
		out = append(out, redisStatus(k, states[i].Val(), windows[i].Val(), now))
	}
	return out, nil
}

// redisStatus reads a breaker's hashes as breaker.status would.
func redisStatus(key string, h, w map[string]string, now time.Time) Status {
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	s := Status{Key: key, State: State(num(h["state"])), Failures: int(num(h["failures"]))}
	if opened := num(h["opened"]); opened != 0 {
		s.OpenedAt = time.UnixMilli(opened).UTC()
	}
	_ = json.Unmarshal([]byte(h["policy"]), &s.Policy) // absent until a call brought one
	bucket := now.UnixMilli() / bucketWidth(s.Policy)
	for field, v := range w {
		n, err := strconv.ParseInt(field[1:], 10, 64)
		if err != nil || n <= bucket-windowBuckets {
			continue
		}
		if strings.HasPrefix(field, "c") {
			s.Calls += int(num(v))
		} else {
			s.WindowFailures += int(num(v))
		}
	}
	return s
}

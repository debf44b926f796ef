package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

const scheduledXML = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="report" isExecutable="true">
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/></process>
  <process id="nightly" isExecutable="false">
    <startEvent id="at2"><timerEventDefinition wf:timeZone="Europe/Berlin"><timeCycle>0 2 * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e2"/><sequenceFlow id="f2" sourceRef="at2" targetRef="e2"/></process>
</definitions>`

const nightlyXML = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="n" targetNamespace="t">
  <process id="nightly" isExecutable="true">
    <startEvent id="at2"><timerEventDefinition wf:timeZone="Europe/Berlin"><timeCycle>0 2 * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e2"/><sequenceFlow id="f2" sourceRef="at2" targetRef="e2"/></process>
</definitions>`

type scheduleJSON struct {
	ID            string      `json:"id"`
	DefinitionKey string      `json:"definitionKey"`
	Cron          string      `json:"cron"`
	TimeZone      string      `json:"timeZone"`
	Enabled       bool        `json:"enabled"`
	Source        string      `json:"source"`
	Rev           int64       `json:"rev"`
	Next          []time.Time `json:"nextFireTimes"`
	OnFailure     *struct {
		Action   string `json:"action"`
		Attempts int    `json:"attempts"`
		Delay    string `json:"delay"`
	} `json:"onFailure"`
	LastRuns []struct {
		Scheduled      time.Time `json:"scheduledTime"`
		InstanceID     string    `json:"instanceId"`
		Status         string    `json:"status"`
		InstanceStatus string    `json:"instanceStatus"`
	} `json:"lastRuns"`
}

// TestSchedulesAPI: a schedule is created, fires on the engine's clock,
// shows its next fire times and last runs, is disabled, refuses a stale
// edit and bad input by field, and is deleted; a timer start event is
// listed beside it, read-only.
func TestSchedulesAPI(t *testing.T) {
	t.Parallel()
	clock := engine.NewVirtualClock(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
	f := setupEngine(t, func(c *engine.Config) { c.Clock = clock })
	f.deploySource([]byte(scheduledXML))
	f.deploySource([]byte(nightlyXML))

	var sc scheduleJSON
	resp := f.json(http.MethodPost, "/api/v1/schedules", map[string]any{
		"definitionKey": "report", "cron": "*/5 * * * *", "timeZone": "Europe/Berlin",
		"variables": map[string]any{"at": "${scheduledTime}"}, "onFailure": map[string]any{"action": "retry", "attempts": 3, "delay": "PT30S"},
	}, &sc)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.True(t, sc.Enabled)
	require.Equal(t, "api", sc.Source)
	require.Len(t, sc.Next, 5)
	require.Equal(t, clock.Now().Add(5*time.Minute), sc.Next[0].UTC())
	require.Equal(t, "30s", sc.OnFailure.Delay)

	clock.Advance(5 * time.Minute)
	require.NoError(t, f.eng.WaitIdle(context.Background()))
	var got scheduleJSON
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, "/api/v1/schedules/"+sc.ID, nil, &got).StatusCode)
	require.Len(t, got.LastRuns, 1)
	require.Equal(t, "started", got.LastRuns[0].Status)
	require.Equal(t, "completed", got.LastRuns[0].InstanceStatus)
	var inst instance
	f.json(http.MethodGet, "/api/v1/instances/"+got.LastRuns[0].InstanceID, nil, &inst)
	require.Equal(t, "2026-03-28T12:05:00Z", inst.Variables["at"])

	// A stale rev is refused; disabling with the current one is not.
	resp = f.json(http.MethodPatch, "/api/v1/schedules/"+sc.ID, map[string]any{"enabled": false, "rev": sc.Rev}, nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	var off scheduleJSON
	resp = f.json(http.MethodPatch, "/api/v1/schedules/"+sc.ID, map[string]any{"enabled": false, "rev": got.Rev}, &off)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.False(t, off.Enabled)

	var list struct {
		Items []scheduleJSON `json:"items"`
	}
	f.json(http.MethodGet, "/api/v1/schedules", nil, &list)
	require.Len(t, list.Items, 2)
	require.Equal(t, sc.ID, list.Items[0].ID)
	bpmn := list.Items[1]
	require.Equal(t, "bpmn", bpmn.Source)
	require.Equal(t, "nightly", bpmn.DefinitionKey)
	require.Equal(t, time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), bpmn.Next[0].UTC(), "02:00 in Berlin does not exist that night: at 03:00 CEST")
	require.Equal(t, time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC), bpmn.Next[1].UTC(), "02:00 in Berlin, CEST from now on")
	resp = f.json(http.MethodDelete, "/api/v1/schedules/"+url.PathEscape(bpmn.ID), nil, nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode, "read-only")

	for field, body := range map[string]map[string]any{
		"cron":          {"definitionKey": "report", "cron": "every day"},
		"timeZone":      {"definitionKey": "report", "cron": "0 9 * * *", "timeZone": "Berlin"},
		"definitionKey": {"definitionKey": "absent", "interval": "15m"},
		"interval":      {"definitionKey": "report", "interval": "soon"},
		"endDate":       {"definitionKey": "report", "interval": "15m", "endDate": "tomorrow"},
		"overlap":       {"definitionKey": "report", "interval": "15m", "overlap": "sometimes"},
	} {
		var e struct {
			Error struct {
				Details []struct {
					Field string `json:"field"`
				} `json:"details"`
			} `json:"error"`
		}
		resp := f.json(http.MethodPost, "/api/v1/schedules", body, &e)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, field)
		require.Len(t, e.Error.Details, 1, field)
		require.Equal(t, field, e.Error.Details[0].Field)
	}

	require.Equal(t, http.StatusNoContent, f.json(http.MethodDelete, "/api/v1/schedules/"+sc.ID, nil, nil).StatusCode)
	require.Equal(t, http.StatusNotFound, f.json(http.MethodGet, "/api/v1/schedules/"+sc.ID, nil, nil).StatusCode)
}

// TestSchedulesOfTimerStartEvents: a timer start event's cycle is a stored
// schedule: listed, fired on the engine's clock with its runs shown, its
// cron refused with a pointer to the BPMN, and disabled like any other.
func TestSchedulesOfTimerStartEvents(t *testing.T) {
	t.Parallel()
	clock := engine.NewVirtualClock(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
	f := setupEngine(t, func(c *engine.Config) { c.Clock = clock })
	f.deploySource([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="p" targetNamespace="t">
  <process id="poll" isExecutable="true">
    <startEvent id="every5"><timerEventDefinition wf:timeZone="Europe/Berlin"><timeCycle>*/5 * * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="every5" targetRef="e"/></process>
</definitions>`))
	var list struct {
		Items []scheduleJSON `json:"items"`
	}
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, "/api/v1/schedules", nil, &list).StatusCode)
	require.Len(t, list.Items, 1)
	sc := list.Items[0]
	require.Equal(t, "bpmn", sc.Source)
	require.Equal(t, "poll", sc.DefinitionKey)
	require.Equal(t, "*/5 * * * *", sc.Cron)
	require.Equal(t, "Europe/Berlin", sc.TimeZone)
	path := "/api/v1/schedules/" + url.PathEscape(sc.ID)

	clock.Advance(5 * time.Minute)
	require.NoError(t, f.eng.WaitIdle(context.Background()))
	var got scheduleJSON
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, path, nil, &got).StatusCode)
	require.Len(t, got.Next, 5)
	require.Equal(t, clock.Now().Add(5*time.Minute), got.Next[0].UTC())
	require.Len(t, got.LastRuns, 1)
	require.Equal(t, "started", got.LastRuns[0].Status)
	require.Equal(t, "completed", got.LastRuns[0].InstanceStatus)

	var refused struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	resp := f.json(http.MethodPatch, path, map[string]any{"cron": "0 * * * *"}, &refused)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, "read_only", refused.Error.Code)
	require.Contains(t, refused.Error.Message, "change the timer there")

	var off scheduleJSON
	require.Equal(t, http.StatusOK, f.json(http.MethodPatch, path, map[string]any{"enabled": false, "rev": got.Rev}, &off).StatusCode)
	require.False(t, off.Enabled)
	clock.Advance(5 * time.Minute)
	require.NoError(t, f.eng.WaitIdle(context.Background()))
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, path, nil, &got).StatusCode)
	require.Len(t, got.LastRuns, 1, "disabled: no run")
}

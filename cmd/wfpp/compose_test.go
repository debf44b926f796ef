package main

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestComposeFile checks docker-compose.yml and the Dockerfile as far as a
// machine without Docker can: the YAML parses and wires what the README says,
// three replicas behind a proxy that `docker compose up --scale wfpp=N` can
// multiply (nothing per replica in the shared definition).
func TestComposeFile(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../docker-compose.yml")
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image         string            `yaml:"image"`
			Build         string            `yaml:"build"`
			Command       []string          `yaml:"command"`
			Environment   map[string]string `yaml:"environment"`
			Ports         []string          `yaml:"ports"`
			Hostname      string            `yaml:"hostname"`
			ContainerName string            `yaml:"container_name"`
			Deploy        struct {
				Replicas int `yaml:"replicas"`
			} `yaml:"deploy"`
			DependsOn yaml.Node `yaml:"depends_on"` // a list or a map of conditions
			Configs   []struct {
				Source string `yaml:"source"`
				Target string `yaml:"target"`
			} `yaml:"configs"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
		Configs map[string]struct {
			Content string `yaml:"content"`
		} `yaml:"configs"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	require.NoError(t, dec.Decode(&compose))

	mongo, redis, wfpp, proxy := compose.Services["mongo"], compose.Services["redis"], compose.Services["wfpp"], compose.Services["proxy"]
	require.True(t, strings.HasPrefix(mongo.Image, "mongo:7"), "mongo image %q", mongo.Image)
	require.Contains(t, strings.Join(mongo.Command, " "), "--replSet rs0")
	require.Contains(t, strings.Join(mongo.Healthcheck.Test, " "), "rs.initiate")
	require.True(t, strings.HasPrefix(redis.Image, "redis:7"), "redis image %q", redis.Image)
	require.NotEmpty(t, redis.Healthcheck.Test)

	require.Equal(t, ".", wfpp.Build)
	require.Contains(t, wfpp.Environment["WFPP_MONGO_URI"], "replicaSet=rs0")
	require.True(t, strings.HasPrefix(wfpp.Environment["WFPP_MONGO_URI"], "mongodb://mongo:27017/"))
	require.True(t, strings.HasPrefix(wfpp.Environment["WFPP_REDIS_URL"], "redis://redis:6379"))
	var deps map[string]struct {
		Condition string `yaml:"condition"`
	}
	require.NoError(t, wfpp.DependsOn.Decode(&deps))
	for _, dep := range []string{"mongo", "redis"} {
		require.Equal(t, "service_healthy", deps[dep].Condition, dep)
	}

	// Replicas: what differs per replica comes from the container (host
	// name, pid), so the definition scales; the proxy alone has the port.
	require.Equal(t, 3, wfpp.Deploy.Replicas)
	require.Empty(t, wfpp.Ports, "a host port on wfpp collides once scaled: the proxy publishes 8080")
	require.Empty(t, wfpp.Hostname+wfpp.ContainerName, "one host or container name for every replica")
	for _, perReplica := range []string{"WFPP_REPLICA_ID", "WFPP_ADVERTISE_ADDR", "WFPP_DATA_DIR"} {
		require.NotContains(t, wfpp.Environment, perReplica, "shared by every replica")
	}
	require.Equal(t, ":8080", wfpp.Environment["WFPP_ADDR"], "all interfaces: the replica advertises its host name")
	require.NotEmpty(t, wfpp.Environment["WFPP_CLUSTER_SECRET"], "without it the internal routes answer loopback callers only")
	proxies, err := parseTrustedProxies(wfpp.Environment["WFPP_TRUSTED_PROXIES"])
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(proxies, func(p netip.Prefix) bool { return p.Contains(netip.MustParseAddr("172.18.0.5")) }),
		"trust the compose network (Docker's first range is 172.18.0.0/16), or every client shares the proxy's rate-limit bucket")
	require.True(t, strings.HasPrefix(proxy.Image, "caddy:2"), "proxy image %q", proxy.Image)
	require.Equal(t, []string{"8080:8080"}, proxy.Ports)
	require.Len(t, proxy.Configs, 1)
	require.Equal(t, "/etc/caddy/Caddyfile", proxy.Configs[0].Target)
	caddyfile := compose.Configs[proxy.Configs[0].Source].Content
	require.Contains(t, caddyfile, "dynamic a wfpp 8080", "upstreams: every replica of the service, looked up again")
	require.Contains(t, caddyfile, "respond /internal/* 404", "the replicas' internal routes stay inside")
	require.NotContains(t, caddyfile, "trusted_proxies", "Caddy replaces the X-Forwarded-For a client sends only while it trusts no proxy in front")

	docker, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	for _, want := range []string{"FROM golang:1.26", "go build", "./cmd/wfpp", "FROM gcr.io/distroless/static", "EXPOSE 8080", `CMD ["serve"]`} {
		require.Contains(t, string(docker), want)
	}
}

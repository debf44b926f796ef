package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestComposeFile checks docker-compose.yml and the Dockerfile as far as a
// machine without Docker can: the YAML parses and wires what the README says.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../docker-compose.yml")
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Build       string            `yaml:"build"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			DependsOn   map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	require.NoError(t, dec.Decode(&compose))

	mongo, redis, wfpp := compose.Services["mongo"], compose.Services["redis"], compose.Services["wfpp"]
	require.True(t, strings.HasPrefix(mongo.Image, "mongo:7"), "mongo image %q", mongo.Image)
	require.Contains(t, strings.Join(mongo.Command, " "), "--replSet rs0")
	require.Contains(t, strings.Join(mongo.Healthcheck.Test, " "), "rs.initiate")
	require.True(t, strings.HasPrefix(redis.Image, "redis:7"), "redis image %q", redis.Image)
	require.NotEmpty(t, redis.Healthcheck.Test)

	require.Equal(t, ".", wfpp.Build)
	require.Contains(t, wfpp.Environment["WFPP_MONGO_URI"], "replicaSet=rs0")
	require.True(t, strings.HasPrefix(wfpp.Environment["WFPP_MONGO_URI"], "mongodb://mongo:27017/"))
	require.True(t, strings.HasPrefix(wfpp.Environment["WFPP_REDIS_URL"], "redis://redis:6379"))
	require.Contains(t, wfpp.Ports, "8080:8080")
	for _, dep := range []string{"mongo", "redis"} {
		require.Equal(t, "service_healthy", wfpp.DependsOn[dep].Condition, dep)
	}

	docker, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	for _, want := range []string{"FROM golang:1.26", "go build", "./cmd/wfpp", "FROM gcr.io/distroless/static", "EXPOSE 8080", `CMD ["serve"]`} {
		require.Contains(t, string(docker), want)
	}
}

package docker

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rmsidecar/rmsidecar/config"
)

type composeFile struct {
	Name string `yaml:"name"`
	// HadoopEnv is the shared Hadoop configuration (a compose extension field).
	HadoopEnv map[string]string  `yaml:"x-hadoop-env"`
	Services  map[string]service `yaml:"services"`
	Volumes   map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Hostname    string            `yaml:"hostname"`
	Restart     string            `yaml:"restart"`
	Build       *build            `yaml:"build"`
	Command     []string          `yaml:"command"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	DependsOn   yaml.Node         `yaml:"depends_on"`
	Profiles    []string          `yaml:"profiles"`
	Healthcheck map[string]any    `yaml:"healthcheck"`
}

type build struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
	Target     string `yaml:"target"`
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true) // a misspelt key is an error, as in docker compose
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// dependsOn lists a service's dependencies in either compose form.
func dependsOn(t *testing.T, s service) []string {
	t.Helper()
	switch s.DependsOn.Kind {
	case 0:
		return nil
	case yaml.SequenceNode:
		var out []string
		if err := s.DependsOn.Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	case yaml.MappingNode:
		var m map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := s.DependsOn.Decode(&m); err != nil {
			t.Fatal(err)
		}
		var out []string
		for k, v := range m {
			if !slices.Contains([]string{"service_started", "service_healthy", "service_completed_successfully"}, v.Condition) {
				t.Errorf("depends_on %s: unknown condition %q", k, v.Condition)
			}
			out = append(out, k)
		}
		return out
	}
	t.Fatalf("depends_on: unexpected YAML kind %v", s.DependsOn.Kind)
	return nil
}

func TestComposeStructure(t *testing.T) {
	c := loadCompose(t)
	images := map[string]string{
		"namenode": "apache/hadoop:", "datanode": "apache/hadoop:", "resourcemanager": "apache/hadoop:",
		"nodemanager": "apache/hadoop:", "kafka": "apache/kafka:",
	}
	for name, prefix := range images {
		s, ok := c.Services[name]
		if !ok {
			t.Errorf("no %s service", name)
			continue
		}
		if !strings.HasPrefix(s.Image, prefix) {
			t.Errorf("%s: image %q, want %s*", name, s.Image, prefix)
		}
	}
	for _, key := range []string{"CORE-SITE.XML_fs.defaultFS", "YARN-SITE.XML_yarn.resourcemanager.hostname",
		"YARN-SITE.XML_yarn.node-labels.enabled", "YARN-SITE.XML_yarn.cluster.max-application-priority",
		"YARN-SITE.XML_yarn.resourcemanager.application-master-service.processors",
		"MAPRED-SITE.XML_yarn.app.mapreduce.am.job.speculator.class", "YARN-SITE.XML_rmsidecar.sidecar.url"} {
		if c.HadoopEnv[key] == "" {
			t.Errorf("hadoop config lacks %s", key)
		}
	}
	for _, name := range []string{"namenode", "datanode", "resourcemanager", "nodemanager"} {
		if c.Services[name].Environment["CORE-SITE.XML_fs.defaultFS"] != c.HadoopEnv["CORE-SITE.XML_fs.defaultFS"] {
			t.Errorf("%s does not get the shared hadoop config", name)
		}
	}
	if roles := c.Services["kafka"].Environment["KAFKA_PROCESS_ROLES"]; roles != "broker,controller" {
		t.Errorf("kafka is not a KRaft broker+controller: KAFKA_PROCESS_ROLES=%q", roles)
	}
	for name, s := range c.Services {
		for _, d := range dependsOn(t, s) {
			if _, ok := c.Services[d]; !ok {
				t.Errorf("%s depends on unknown service %s", name, d)
			}
		}
		for _, v := range s.Volumes {
			src := strings.Split(v, ":")[0]
			if strings.HasPrefix(src, ".") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("%s mounts %s: %v", name, src, err)
				}
			} else if _, ok := c.Volumes[src]; !ok {
				t.Errorf("%s mounts undeclared volume %s", name, src)
			}
		}
		for _, p := range s.Ports {
			// Published on the loopback only: nothing here has authentication on.
			if !regexp.MustCompile(`^127\.0\.0\.1:\d+:\d+$`).MatchString(p) {
				t.Errorf("%s: port %q is not 127.0.0.1:HOST:CONTAINER", name, p)
			}
		}
		if len(s.Profiles) > 0 {
			t.Errorf("%s: behind profiles %v: not started by `docker compose up`", name, s.Profiles)
		}
		for k, v := range s.Environment {
			// Compose interpolates $VAR from the host; the container's own
			// variables must be written $$VAR.
			if regexp.MustCompile(`(^|[^$])\$[A-Za-z_]`).MatchString(v) {
				t.Errorf("%s: %s=%q would be interpolated from the host; write $$", name, k, v)
			}
		}
	}
	sc, ok := c.Services["sidecar"]
	if !ok {
		t.Fatal("no sidecar service")
	}
	if sc.Build == nil || filepath.Join(sc.Build.Context, sc.Build.Dockerfile) != "../docker/Dockerfile" {
		t.Errorf("sidecar build %+v, want context .. and docker/Dockerfile", sc.Build)
	}
	if !slices.Contains(dependsOn(t, sc), "kafka") && !slices.Contains(dependsOn(t, sc), "kafka-init") {
		t.Error("sidecar does not wait for Kafka")
	}
	if !slices.Contains(sc.Ports, "127.0.0.1:9464:9464") {
		t.Errorf("sidecar ports %v: the HTTP API is not published", sc.Ports)
	}
}

// TestSidecarConfigIsValid runs the mounted config through rmsidecar's own
// loading and validation, and checks it points at the compose services.
func TestSidecarConfigIsValid(t *testing.T) {
	c := loadCompose(t)
	var mounted string
	for _, v := range c.Services["sidecar"].Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == "/etc/rmsidecar/config.yaml" {
			mounted = parts[0]
		}
	}
	if mounted == "" {
		t.Fatal("the sidecar service mounts no /etc/rmsidecar/config.yaml")
	}
	if !slices.Contains(c.Services["sidecar"].Command, "/etc/rmsidecar/config.yaml") {
		t.Errorf("sidecar command %v does not use the mounted config", c.Services["sidecar"].Command)
	}
	cfg, err := config.Load(mounted, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", mounted, err)
	}
	for _, b := range cfg.Kafka.Brokers {
		host := strings.Split(b, ":")[0]
		if _, ok := c.Services[host]; !ok {
			t.Errorf("kafka.brokers: %s is not a compose service", b)
		}
	}
	if len(cfg.Kafka.Brokers) == 0 {
		t.Error("kafka.brokers empty: the sidecar would start its embedded demo instead of joining the cluster")
	}
	for _, u := range cfg.RM.URLs {
		if !strings.Contains(u, "//resourcemanager:") {
			t.Errorf("rm.urls: %s is not the compose resourcemanager", u)
		}
	}
	if !strings.HasPrefix(cfg.HTTP.Addr, "0.0.0.0:") {
		t.Errorf("http.addr %s is not reachable from outside the container", cfg.HTTP.Addr)
	}
	for key, path := range map[string]string{"profiles.path": cfg.Profiles.Path, "actuators.journal": cfg.Actuators.Journal} {
		if !strings.HasPrefix(path, "/var/lib/rmsidecar/") {
			t.Errorf("%s %s is not on the data volume", key, path)
		}
	}
	// Topics the init job creates must be the ones the config uses.
	init := strings.Join(c.Services["kafka-init"].Command, " ")
	for _, topic := range []string{cfg.Kafka.EventsTopic, cfg.Kafka.NodeTopic, cfg.Kafka.HintsTopic, cfg.Kafka.DeadLetterTopic} {
		if !strings.Contains(init, topic+":") {
			t.Errorf("kafka-init does not create %s", topic)
		}
	}
}

func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := len(regexp.MustCompile(`(?m)^FROM `).FindAllString(s, -1)); n < 2 {
		t.Errorf("%d FROM lines: not a multi-stage build", n)
	}
	if !strings.Contains(s, "CGO_ENABLED=0") {
		t.Error("binary not built with CGO_ENABLED=0: not static")
	}
	m := regexp.MustCompile(`(?m)^USER (\S+)`).FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		t.Fatal("no USER: the container runs as root")
	}
	if u := m[len(m)-1][1]; u == "root" || strings.HasPrefix(u, "0") {
		t.Errorf("final USER %s is root", u)
	}
	if !strings.Contains(s, "./cmd/rmsidecar") {
		t.Error("Dockerfile does not build ./cmd/rmsidecar")
	}
}

// TestEventsFlowByDefault: the bridge runs with `docker compose up`, publishes
// to the topics the sidecar reads, and the RM and NodeManager get the
// plug-ins' jar.
func TestEventsFlowByDefault(t *testing.T) {
	c := loadCompose(t)
	br, ok := c.Services["bridge"]
	if !ok {
		t.Fatal("no bridge service")
	}
	cmd := strings.Join(br.Command, " ")
	cfg, err := config.Load("sidecar.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--topic " + cfg.Kafka.EventsTopic, "--node-topic " + cfg.Kafka.NodeTopic, "--kafka kafka:9092", "--hdfs-conf "} {
		if !strings.Contains(cmd, want) {
			t.Errorf("bridge command %q lacks %q", cmd, want)
		}
	}
	if df, err := os.ReadFile("Dockerfile"); err != nil || !strings.Contains(string(df), " AS plugin-jar") {
		t.Errorf("the yarn-plugin service builds target plugin-jar, which the Dockerfile lacks (%v)", err)
	}
	if _, err := os.Stat("hadoop-conf/core-site.xml"); err != nil {
		t.Errorf("the bridge's Hadoop conf: %v", err)
	}
	for _, name := range []string{"resourcemanager", "nodemanager"} {
		if !slices.Contains(c.Services[name].Volumes, "yarn-plugin:/opt/rmsidecar:ro") {
			t.Errorf("%s does not mount the plug-ins' jar", name)
		}
	}
	if !strings.Contains(c.HadoopEnv["MAPRED-SITE.XML_mapreduce.application.classpath"], "/opt/rmsidecar/*") {
		t.Error("the MR AM classpath lacks the plug-ins' jar")
	}
	if c.Services["resourcemanager"].Environment["HADOOP_CLASSPATH"] != "/opt/rmsidecar/*" {
		t.Error("the RM classpath lacks the plug-ins' jar")
	}
	k := c.Services["kafka"].Environment
	if !strings.Contains(k["KAFKA_ADVERTISED_LISTENERS"], "HOST://localhost:29092") || !slices.Contains(c.Services["kafka"].Ports, "127.0.0.1:29092:29092") {
		t.Errorf("Kafka has no host listener on localhost:29092: %q %v", k["KAFKA_ADVERTISED_LISTENERS"], c.Services["kafka"].Ports)
	}
}

package config

import (
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Example is the annotated example configuration shipped with the binary.
//
//go:embed example.yaml
var Example []byte

// EnvPrefix prefixes environment overrides: kafka.brokers -> RMSIDECAR_KAFKA_BROKERS.
const EnvPrefix = "RMSIDECAR"

// Config is the whole configuration.
type Config struct {
	Log       Log       `mapstructure:"log"`
	HTTP      HTTP      `mapstructure:"http"`
	Kafka     Kafka     `mapstructure:"kafka"`
	Engine    Engine    `mapstructure:"engine"`
	Model     Model     `mapstructure:"model"`
	Policies  Policies  `mapstructure:"policies"`
	Actuators Actuators `mapstructure:"actuators"`
	RM        RM        `mapstructure:"rm"`
	HDFS      HDFS      `mapstructure:"hdfs"`
	Kerberos  Kerberos  `mapstructure:"kerberos"`
	Profiles  Profiles  `mapstructure:"profiles"`
	Runtime   Runtime   `mapstructure:"runtime"`
}

// Kerberos is the sidecar's identity on a secured cluster: SPNEGO to the RM
// REST API (rm.auth: kerberos) and RPC plus WebHDFS to the NameNode when the
// Hadoop configuration says hadoop.security.authentication=kerberos.
type Kerberos struct {
	Principal string `mapstructure:"principal"` // name[/host]@REALM; no realm: krb5.conf default_realm
	Keytab    string `mapstructure:"keytab"`
	Krb5Conf  string `mapstructure:"krb5_conf"`
}

// Log configures logging.
type Log struct {
	Level  string `mapstructure:"level"`  // trace, debug, info, warn, error
	Format string `mapstructure:"format"` // auto (console on a TTY, else json), json, console
	// StatusInterval is how often run logs a status line (events/s, hints/s,
	// lag, dead letters); 0 turns it off.
	StatusInterval time.Duration `mapstructure:"status_interval"`
}

// HTTP configures the HTTP server.
type HTTP struct {
	Addr string `mapstructure:"addr"`
	// OperatorHints lets POST /v1/hints add hints that the Hadoop plug-ins
	// act on like a policy's (operator overrides, tests).
	OperatorHints bool `mapstructure:"operator_hints"`
	// Token, when set (or read from TokenFile), is required as
	// "Authorization: Bearer <token>" on every endpoint but /healthz and
	// /readyz.
	Token     Secret `mapstructure:"token"`
	TokenFile string `mapstructure:"token_file"`
	// TLS serves HTTPS when both files are set.
	TLS HTTPTLS `mapstructure:"tls"`
	// Pprof mounts /debug/pprof (off by default: it exposes the command line
	// and costs CPU when profiled).
	Pprof bool `mapstructure:"pprof"`
}

// HTTPTLS is the HTTP server's certificate and key (PEM files).
type HTTPTLS struct {
	CertFile string `mapstructure:"cert_file"`
	KeyFile  string `mapstructure:"key_file"`
}

// Enabled reports whether the server speaks HTTPS.
func (t HTTPTLS) Enabled() bool { return t.CertFile != "" }

// BearerToken is the token the HTTP API requires: http.token, else the
// first line of http.token_file; empty when neither is set.
func (h HTTP) BearerToken() (string, error) {
	if h.TokenFile == "" {
		return string(h.Token), nil
	}
	b, err := os.ReadFile(h.TokenFile)
	if err != nil {
		return "", &KeyError{Key: "http.token_file", Reason: err.Error()}
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", &KeyError{Key: "http.token_file", Reason: h.TokenFile + ": empty"}
	}
	return tok, nil
}

// Kafka configures ingestion and the hints and dead-letter topics.
type Kafka struct {
	// Brokers; empty starts an embedded broker fed by a simulated cluster.
	Brokers         []string `mapstructure:"brokers"`
	Version         string   `mapstructure:"version"`
	Group           string   `mapstructure:"group"`
	EventsTopic     string   `mapstructure:"events_topic"`
	NodeTopic       string   `mapstructure:"node_topic"`
	HintsTopic      string   `mapstructure:"hints_topic"`
	DeadLetterTopic string   `mapstructure:"dead_letter_topic"`
	ClientID        string   `mapstructure:"client_id"`
	// Instance names this sidecar among several in one group: it keys the
	// instance's own node-topic group and its hint ids (empty: the hostname).
	Instance       string        `mapstructure:"instance"`
	Assignor       string        `mapstructure:"assignor"`
	CommitInterval time.Duration `mapstructure:"commit_interval"`
	TLS            TLS           `mapstructure:"tls"`
	SASL           SASL          `mapstructure:"sasl"`
}

// TLS configures Kafka TLS.
type TLS struct {
	Enabled            bool   `mapstructure:"enabled"`
	CAFile             string `mapstructure:"ca_file"`
	CertFile           string `mapstructure:"cert_file"`
	KeyFile            string `mapstructure:"key_file"`
	InsecureSkipVerify bool   `mapstructure:"insecure_skip_verify"`
}

// SASL configures Kafka SASL/SCRAM.
type SASL struct {
	Enabled   bool   `mapstructure:"enabled"`
	Mechanism string `mapstructure:"mechanism"` // SCRAM-SHA-256, SCRAM-SHA-512, PLAIN
	User      string `mapstructure:"user"`
	Password  Secret `mapstructure:"password"`
}

// Secret is a string that never prints.
type Secret string

// String hides the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "******"
}

// GoString hides the value from %#v too.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// MarshalJSON hides the value from JSON (a logged or dumped config).
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// Engine configures the event loop.
type Engine struct {
	Tick      time.Duration `mapstructure:"tick"`
	QueueSize int           `mapstructure:"queue_size"`
}

// Model bounds the cluster model's memory: finished applications, with
// their tasks and containers, leave it after RetainFinished (event time) or
// once more than MaxFinished have finished, oldest first. Learned profiles
// are kept regardless. 0 turns a limit off.
type Model struct {
	RetainFinished time.Duration `mapstructure:"retain_finished"`
	MaxFinished    int           `mapstructure:"max_finished"`
	// HostAliases name the NodeManager on the machine of a DataNode that
	// registers another name (an IP, another interface), so block replicas
	// count as local to it. A list, not a map: host names hold dots, which
	// config keys split on.
	HostAliases []HostAlias `mapstructure:"host_aliases"`
}

// HostAlias maps the host HDFS names for a block replica to a NodeManager.
type HostAlias struct {
	// DataNode is the replica host as the NameNode gives it.
	DataNode string `mapstructure:"datanode"`
	// NodeManager is the NodeManager's host, or its node id host:port when
	// several NodeManagers share a host (then only that one is local).
	NodeManager string `mapstructure:"nodemanager"`
}

// AliasPairs returns model.host_aliases as DataNode -> NodeManager pairs.
func (m Model) AliasPairs() map[string]string {
	if len(m.HostAliases) == 0 {
		return nil
	}
	out := make(map[string]string, len(m.HostAliases))
	for _, a := range m.HostAliases {
		out[a.DataNode] = a.NodeManager
	}
	return out
}

// Policies selects the policy stack and carries per-policy settings
// (policies.samr.hp, policies.erul.alpha, ...).
type Policies struct {
	Stack    string                    `mapstructure:"stack"`
	Settings map[string]map[string]any `mapstructure:",remain"`
}

// Actuators chooses where hints go.
type Actuators struct {
	Enabled []string `mapstructure:"enabled"` // log, kafka, http, rm
	// Journal records delivered hints so a restart does not actuate a hint
	// still in force twice.
	Journal string `mapstructure:"journal"`
}

// RM configures the ResourceManager REST client.
type RM struct {
	URLs    []string      `mapstructure:"urls"`
	User    string        `mapstructure:"user"`
	Timeout time.Duration `mapstructure:"timeout"`
	// Auth is simple (user.name) or kerberos (SPNEGO with kerberos.*).
	Auth string `mapstructure:"auth"`
	// SPN is the RM's HTTP service principal; empty: HTTP/<host of the URL>.
	SPN string `mapstructure:"spn"`
}

// HDFS configures locality lookups.
type HDFS struct {
	ConfDir      string        `mapstructure:"conf_dir"`
	TopologyFile string        `mapstructure:"topology_file"`
	CacheTTL     time.Duration `mapstructure:"cache_ttl"`
	CacheEntries int           `mapstructure:"cache_entries"`
}

// Profiles configures the learned-state store.
type Profiles struct {
	Path string `mapstructure:"path"`
}

// Runtime tunes the Go runtime of `rmsidecar run`.
type Runtime struct {
	// MemoryHeadroomMB keeps a soft memory limit a step above the live
	// heap: the collector runs once the heap has grown by
	// max(MemoryHeadroomMB, an eighth of the live heap, what is allocated in
	// half a second) instead of by the whole live heap (GOGC 100), which a
	// large model pays in RSS. 0 turns it off; GOMEMLIMIT in the
	// environment wins.
	MemoryHeadroomMB int `mapstructure:"memory_headroom_mb"`
}

// DefaultMemoryHeadroomMB is runtime.memory_headroom_mb when nothing sets
// it (and what `rmsidecar bench` runs the sidecar's phases with).
//
// 16: at 10,000 nodes and 100,000 containers (about 100 MB live, 13 MB/s
// allocated at 100,000 events/s) the peak RSS while events are offered
// follows the limit, and 32 put it at about 154 MB, 16 at about 146; the
// collector then runs about once a second there, and a burst is paced by
// the allocation-rate term either way.
const DefaultMemoryHeadroomMB = 16

// DefaultStack is policies.stack when nothing sets it.
const DefaultStack = "yarn"

// defaults are the built-in values; every key here is also a known key for
// environment overrides.
func defaults() map[string]any {
	return map[string]any{
		"log.level":                      "info",
		"log.format":                     "auto",
		"log.status_interval":            "10s",
		"http.addr":                      "127.0.0.1:9464",
		"http.operator_hints":            false,
		"http.token":                     "",
		"http.token_file":                "",
		"http.tls.cert_file":             "",
		"http.tls.key_file":              "",
		"http.pprof":                     false,
		"kafka.brokers":                  []string{},
		"kafka.version":                  "3.9.0",
		"kafka.group":                    "rmsidecar",
		"kafka.events_topic":             "rmsidecar.events",
		"kafka.node_topic":               "rmsidecar.nodes",
		"kafka.hints_topic":              "rmsidecar.hints",
		"kafka.dead_letter_topic":        "rmsidecar.events.dlq",
		"kafka.client_id":                "rmsidecar",
		"kafka.instance":                 "",
		"kafka.assignor":                 "sticky",
		"kafka.commit_interval":          "1s",
		"kafka.tls.enabled":              false,
		"kafka.tls.ca_file":              "",
		"kafka.tls.cert_file":            "",
		"kafka.tls.key_file":             "",
		"kafka.tls.insecure_skip_verify": false,
		"kafka.sasl.enabled":             false,
		"kafka.sasl.mechanism":           "SCRAM-SHA-512",
		"kafka.sasl.user":                "",
		"kafka.sasl.password":            "",
		"engine.tick":                    "1s",
		"engine.queue_size":              4096,
		"model.retain_finished":          "10m",
		"model.max_finished":             5000,
		"policies.stack":                 DefaultStack,
		"actuators.enabled":              []string{"log"},
		"actuators.journal":              "rmsidecar-actuated.jsonl",
		"rm.urls":                        []string{},
		"rm.user":                        "yarn",
		"rm.timeout":                     "10s",
		"rm.auth":                        "simple",
		"rm.spn":                         "",
		"kerberos.principal":             "",
		"kerberos.keytab":                "",
		"kerberos.krb5_conf":             "/etc/krb5.conf",
		"hdfs.conf_dir":                  "",
		"hdfs.topology_file":             "",
		"hdfs.cache_ttl":                 "5m",
		"hdfs.cache_entries":             10000,
		"profiles.path":                  "rmsidecar-profiles.db",
		"runtime.memory_headroom_mb":     DefaultMemoryHeadroomMB,
	}
}

// Flag binds a command-line flag to a config key.
type Flag struct {
	Key  string
	Flag *pflag.Flag
}

// Load reads defaults, then file (if not empty), then the environment (env,
// "KEY=VALUE" pairs as in os.Environ), then flags that were set on the
// command line, and validates the result.
func Load(file string, env []string, flags []Flag) (*Config, error) {
	v := viper.New()
	for k, val := range defaults() {
		v.SetDefault(k, val)
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			var nf viper.ConfigFileNotFoundError
			if errors.As(err, &nf) || os.IsNotExist(err) {
				return nil, fmt.Errorf("config %s: file not found", file)
			}
			return nil, fmt.Errorf("config %s: %w", file, err)
		}
	}
	for _, kv := range env {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, EnvPrefix+"_") {
			continue
		}
		key := envKey(strings.TrimPrefix(k, EnvPrefix+"_"))
		if key == "" {
			return nil, fmt.Errorf("environment %s: no such config key", k)
		}
		v.Set(key, val)
	}
	for _, f := range flags {
		if f.Flag != nil && f.Flag.Changed {
			v.Set(f.Key, f.Flag.Value.String())
		}
	}
	var cfg Config
	dec := func(dc *mapstructure.DecoderConfig) {
		dc.ErrorUnused = true
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToTimeDurationHookFunc(),
			commaListHook,
		)
	}
	if err := v.Unmarshal(&cfg, dec); err != nil {
		src := "config"
		if file != "" {
			src = "config " + file
		}
		return nil, fmt.Errorf("%s: %w", src, cleanDecodeError(err))
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// envKey maps KAFKA_BROKERS to kafka.brokers by matching known keys.
func envKey(suffix string) string {
	want := strings.ToLower(suffix)
	for k := range defaults() {
		if strings.ReplaceAll(k, ".", "_") == want {
			return k
		}
	}
	return ""
}

// commaListHook lets "a:1,b:2" (from env or a flag) fill a []string.
func commaListHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to != reflect.TypeOf([]string{}) {
		return data, nil
	}
	s := strings.TrimSpace(data.(string))
	s = strings.Trim(s, "[]")
	if s == "" {
		return []string{}, nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, nil
}

// Patterns of mapstructure messages, rewritten to "key: reason".
var (
	invalidKeysRE = regexp.MustCompile(`'([^']*)' has invalid keys: (.*)`)
	keyReasonRE   = regexp.MustCompile(`'([^']+)' (.*)`)
)

func cleanDecodeError(err error) error {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "decoding failed") {
			continue
		}
		if m := invalidKeysRE.FindStringSubmatch(l); m != nil {
			if m[1] == "" {
				l = "unknown keys: " + m[2]
			} else {
				l = m[1] + ": unknown keys: " + m[2]
			}
		} else if m := keyReasonRE.FindStringSubmatch(l); m != nil {
			l = m[1] + ": " + m[2]
		}
		lines = append(lines, l)
	}
	return errors.New(strings.Join(lines, "; "))
}

// KeyError names a config key and what is wrong with it.
type KeyError struct {
	Key    string
	Reason string
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Reason }

// hostLike reports whether s can be a host name or host:port: not empty,
// no spaces, slashes or scheme.
func hostLike(s string) bool {
	return strings.TrimSpace(s) != "" && !strings.ContainsAny(s, " \t/")
}

// Known actuators.
var actuatorNames = []string{"log", "kafka", "http", "rm"}

// Validate checks every setting and returns all problems, each naming its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &KeyError{Key: key, Reason: fmt.Sprintf(format, args...)})
	}
	if !slices.Contains([]string{"trace", "debug", "info", "warn", "error"}, c.Log.Level) {
		bad("log.level", "must be one of trace, debug, info, warn, error; got %q", c.Log.Level)
	}
	if !slices.Contains([]string{"auto", "json", "console"}, c.Log.Format) {
		bad("log.format", "must be one of auto, json, console; got %q", c.Log.Format)
	}
	if c.Log.StatusInterval < 0 {
		bad("log.status_interval", "must be >= 0 (0: no status line); got %s", c.Log.StatusInterval)
	}
	if err := hostPort(c.HTTP.Addr); err != nil {
		bad("http.addr", "%v", err)
	}
	if c.HTTP.Token != "" && c.HTTP.TokenFile != "" {
		bad("http.token", "set http.token or http.token_file, not both")
	}
	if _, err := c.HTTP.BearerToken(); err != nil {
		errs = append(errs, err)
	}
	if (c.HTTP.TLS.CertFile == "") != (c.HTTP.TLS.KeyFile == "") {
		bad("http.tls", "cert_file and key_file go together")
	}
	for _, kf := range [][2]string{{"http.tls.cert_file", c.HTTP.TLS.CertFile}, {"http.tls.key_file", c.HTTP.TLS.KeyFile}} {
		if kf[1] != "" {
			if _, err := os.Stat(kf[1]); err != nil {
				bad(kf[0], "%v", err)
			}
		}
	}
	for i, b := range c.Kafka.Brokers {
		if err := hostPort(b); err != nil {
			bad(fmt.Sprintf("kafka.brokers[%d]", i), "%v", err)
		}
	}
	if err := kafkaVersion(c.Kafka.Version); err != nil {
		bad("kafka.version", "%v", err)
	}
	for key, val := range map[string]string{
		"kafka.group": c.Kafka.Group, "kafka.events_topic": c.Kafka.EventsTopic,
		"kafka.hints_topic": c.Kafka.HintsTopic, "kafka.dead_letter_topic": c.Kafka.DeadLetterTopic,
		"kafka.node_topic": c.Kafka.NodeTopic,
	} {
		if strings.TrimSpace(val) == "" {
			bad(key, "must not be empty")
		}
	}
	if !slices.Contains([]string{"sticky", "cooperative-sticky", "range", "roundrobin"}, c.Kafka.Assignor) {
		bad("kafka.assignor", "must be one of sticky, cooperative-sticky, range, roundrobin; got %q", c.Kafka.Assignor)
	}
	if c.Kafka.CommitInterval <= 0 {
		bad("kafka.commit_interval", "must be > 0")
	}
	if c.Kafka.TLS.Enabled {
		if (c.Kafka.TLS.CertFile == "") != (c.Kafka.TLS.KeyFile == "") {
			bad("kafka.tls", "cert_file and key_file go together")
		}
	}
	if c.Kafka.SASL.Enabled {
		if !slices.Contains([]string{"SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"}, c.Kafka.SASL.Mechanism) {
			bad("kafka.sasl.mechanism", "must be SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN; got %q", c.Kafka.SASL.Mechanism)
		}
		if c.Kafka.SASL.User == "" {
			bad("kafka.sasl.user", "required when kafka.sasl.enabled")
		}
	}
	if c.Engine.Tick <= 0 {
		bad("engine.tick", "must be > 0")
	}
	if c.Engine.QueueSize <= 0 {
		bad("engine.queue_size", "must be > 0")
	}
	if c.Model.RetainFinished < 0 {
		bad("model.retain_finished", "must be >= 0 (0: no time limit)")
	}
	if c.Model.MaxFinished < 0 {
		bad("model.max_finished", "must be >= 0 (0: no cap)")
	}
	seen := map[string]bool{}
	for i, a := range c.Model.HostAliases {
		key := fmt.Sprintf("model.host_aliases[%d]", i)
		switch {
		case !hostLike(a.DataNode):
			bad(key+".datanode", "must be a host name, got %q", a.DataNode)
		case !hostLike(a.NodeManager):
			bad(key+".nodemanager", "must be a NodeManager host or node id host:port, got %q", a.NodeManager)
		case seen[strings.ToLower(a.DataNode)]:
			bad(key+".datanode", "%q is aliased twice", a.DataNode)
		}
		seen[strings.ToLower(a.DataNode)] = true
	}
	if c.Runtime.MemoryHeadroomMB < 0 {
		bad("runtime.memory_headroom_mb", "must be >= 0 (0: no soft memory limit); got %d", c.Runtime.MemoryHeadroomMB)
	}
	if strings.TrimSpace(c.Policies.Stack) == "" {
		bad("policies.stack", "must not be empty")
	}
	if len(c.Actuators.Enabled) == 0 {
		bad("actuators.enabled", "at least one actuator (log, kafka, http, rm)")
	}
	for i, a := range c.Actuators.Enabled {
		if !slices.Contains(actuatorNames, a) {
			bad(fmt.Sprintf("actuators.enabled[%d]", i), "unknown actuator %q (known: %s)", a, strings.Join(actuatorNames, ", "))
		}
		if a == "rm" && len(c.RM.URLs) == 0 {
			bad("rm.urls", "required when the rm actuator is enabled")
		}
	}
	for i, u := range c.RM.URLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			bad(fmt.Sprintf("rm.urls[%d]", i), "not an http(s) URL: %q", u)
		}
	}
	if c.RM.Timeout <= 0 {
		bad("rm.timeout", "must be > 0")
	}
	switch c.RM.Auth {
	case "simple":
	case "kerberos":
		if c.Kerberos.Principal == "" {
			bad("kerberos.principal", "required with rm.auth: kerberos")
		}
		if c.Kerberos.Keytab == "" {
			bad("kerberos.keytab", "required with rm.auth: kerberos")
		}
	default:
		bad("rm.auth", "must be simple or kerberos; got %q", c.RM.Auth)
	}
	if (c.Kerberos.Principal == "") != (c.Kerberos.Keytab == "") {
		bad("kerberos", "principal and keytab go together (principal %q, keytab %q)", c.Kerberos.Principal, c.Kerberos.Keytab)
	}
	if c.Kerberos.Keytab != "" {
		if f, err := os.Open(c.Kerberos.Keytab); err != nil {
			bad("kerberos.keytab", "%v", err)
		} else {
			f.Close()
		}
		if _, err := os.Stat(c.Kerberos.Krb5Conf); err != nil {
			bad("kerberos.krb5_conf", "%v", err)
		}
	}
	if c.HDFS.CacheTTL <= 0 {
		bad("hdfs.cache_ttl", "must be > 0")
	}
	if c.HDFS.CacheEntries <= 0 {
		bad("hdfs.cache_entries", "must be > 0")
	}
	if c.Actuators.Journal == "" {
		bad("actuators.journal", "must not be empty")
	}
	if c.Profiles.Path == "" {
		bad("profiles.path", "must not be empty")
	}
	return errors.Join(errs...)
}

func hostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return fmt.Errorf("not host:port: %q", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 {
		return fmt.Errorf("port out of range: %q", s)
	}
	return nil
}

func kafkaVersion(s string) error {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 4 {
		return fmt.Errorf("not a Kafka version like 3.9.0: %q", s)
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return fmt.Errorf("not a Kafka version like 3.9.0: %q", s)
		}
	}
	return nil
}

// PolicyArgs hands each policy its settings section.
type PolicyArgs map[string]map[string]any

// Decode implements policy.Args: it fills into from policies.<name>, keeping
// into's values for absent keys, and rejects unknown keys by name.
func (a PolicyArgs) Decode(name string, into any) error {
	m, ok := a[name]
	if !ok {
		return nil
	}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           into,
		ErrorUnused:      true,
		WeaklyTypedInput: true,
		TagName:          "yaml",
		DecodeHook:       mapstructure.StringToTimeDurationHookFunc(),
	})
	if err != nil {
		return fmt.Errorf("policies.%s: %w", name, err)
	}
	if err := dec.Decode(m); err != nil {
		return fmt.Errorf("policies.%s: %w", name, cleanDecodeError(err))
	}
	return nil
}

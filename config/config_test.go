package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultsAndExampleAreValid(t *testing.T) {
	d, err := Load("", nil, nil)
	if err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if d.HTTP.Addr != "127.0.0.1:9464" || d.Engine.Tick != time.Second || len(d.Kafka.Brokers) != 0 || d.Actuators.Enabled[0] != "log" {
		t.Fatalf("defaults = %+v", d)
	}
	e, err := Load(write(t, string(Example)), nil, nil)
	if err != nil {
		t.Fatalf("example.yaml: %v", err)
	}
	if e.Policies.Stack != d.Policies.Stack || e.Kafka.Group != d.Kafka.Group {
		t.Fatalf("example.yaml disagrees with the defaults: %+v", e)
	}
}

func TestLayering(t *testing.T) {
	file := write(t, "kafka:\n  brokers: [file:9092]\nlog:\n  level: debug\n")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	lvl := fs.String("log-level", "info", "")
	_ = lvl
	if err := fs.Parse([]string{"--log-level", "warn"}); err != nil {
		t.Fatal(err)
	}
	env := []string{"RMSIDECAR_KAFKA_BROKERS=env1:9092, env2:9093", "HOME=/root", "RMSIDECAR_ENGINE_TICK=250ms"}
	c, err := Load(file, env, []Flag{{Key: "log.level", Flag: fs.Lookup("log-level")}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Kafka.Brokers, ",") != "env1:9092,env2:9093" {
		t.Errorf("env must override file: brokers = %v", c.Kafka.Brokers)
	}
	if c.Log.Level != "warn" {
		t.Errorf("flag must override file: level = %q", c.Log.Level)
	}
	if c.Engine.Tick != 250*time.Millisecond {
		t.Errorf("tick = %v", c.Engine.Tick)
	}
}

func TestValidationNamesKeyAndReason(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  []string
		want string
	}{
		{"broker without port", "kafka:\n  brokers: [kafka-1]\n", nil, "kafka.brokers[0]: not host:port"},
		{"second broker bad port", "kafka:\n  brokers: [a:9092, b:99999]\n", nil, "kafka.brokers[1]: port out of range"},
		{"log level", "log:\n  level: loud\n", nil, "log.level: must be one of"},
		{"unknown actuator", "actuators:\n  enabled: [log, carrier-pigeon]\n", nil, `actuators.enabled[1]: unknown actuator "carrier-pigeon"`},
		{"rm without urls", "actuators:\n  enabled: [rm]\n", nil, "rm.urls: required when the rm actuator is enabled"},
		{"bad rm url", "rm:\n  urls: [rm1:8088]\n", nil, "rm.urls[0]: not an http(s) URL"},
		{"unknown key", "kafka:\n  brokerz: [a:1]\n", nil, "brokerz"},
		{"bad duration", "engine:\n  tick: soon\n", nil, "engine.tick"},
		{"bad env", "", []string{"RMSIDECAR_KAFKA_BROKERZ=x"}, "RMSIDECAR_KAFKA_BROKERZ: no such config key"},
		{"bad version", "kafka:\n  version: latest\n", nil, "kafka.version: not a Kafka version"},
		{"sasl without user", "kafka:\n  sasl:\n    enabled: true\n", nil, "kafka.sasl.user: required"},
		{"unknown rm auth", "rm:\n  auth: ntlm\n", nil, `rm.auth: must be simple or kerberos; got "ntlm"`},
		{"kerberos without principal", "rm:\n  auth: kerberos\n", nil, "kerberos.principal: required with rm.auth: kerberos"},
		{"kerberos without keytab", "rm:\n  auth: kerberos\nkerberos:\n  principal: rmsidecar@EXAMPLE.COM\n", nil, "kerberos.keytab: required with rm.auth: kerberos"},
		{"missing keytab", "kerberos:\n  principal: rmsidecar@EXAMPLE.COM\n  keytab: /nonexistent/rmsidecar.keytab\n", nil, "kerberos.keytab: open /nonexistent/rmsidecar.keytab"},
		{"token and token file", "http:\n  token: a\n  token_file: /dev/null\n", nil, "http.token: set http.token or http.token_file, not both"},
		{"missing token file", "http:\n  token_file: /nonexistent/token\n", nil, "http.token_file: open /nonexistent/token"},
		{"empty token file", "http:\n  token_file: /dev/null\n", nil, "http.token_file: /dev/null: empty"},
		{"tls cert without key", "http:\n  tls:\n    cert_file: /dev/null\n", nil, "http.tls: cert_file and key_file go together"},
		{"missing tls key", "http:\n  tls:\n    cert_file: /dev/null\n    key_file: /nonexistent/key.pem\n", nil, "http.tls.key_file: stat /nonexistent/key.pem"},
		{"host alias without nodemanager", "model:\n  host_aliases:\n    - {datanode: dn1.example.com}\n", nil, `model.host_aliases[0].nodemanager: must be a NodeManager host or node id host:port, got ""`},
		{"host alias twice", "model:\n  host_aliases:\n    - {datanode: 10.0.0.5, nodemanager: w5}\n    - {datanode: 10.0.0.5, nodemanager: w6}\n", nil, `model.host_aliases[1].datanode: "10.0.0.5" is aliased twice`},
		{"negative memory headroom", "", []string{"RMSIDECAR_RUNTIME_MEMORY_HEADROOM_MB=-1"}, "runtime.memory_headroom_mb: must be >= 0"},
		{"missing krb5.conf", "", []string{"RMSIDECAR_KERBEROS_PRINCIPAL=a@B", "RMSIDECAR_KERBEROS_KEYTAB=/dev/null", "RMSIDECAR_KERBEROS_KRB5_CONF=/nonexistent/krb5.conf"}, "kerberos.krb5_conf: stat /nonexistent/krb5.conf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.yaml != "" {
				file = write(t, tt.yaml)
			}
			_, err := Load(file, tt.env, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestHostAliasesKeepDottedNames(t *testing.T) {
	c, err := Load(write(t, "model:\n  host_aliases:\n    - {datanode: dn1.rmsidecar.test, nodemanager: \"localhost:45454\"}\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []HostAlias{{DataNode: "dn1.rmsidecar.test", NodeManager: "localhost:45454"}}
	if !slices.Equal(c.Model.HostAliases, want) {
		t.Fatalf("host_aliases = %+v, want %+v", c.Model.HostAliases, want)
	}
}

func TestMissingFileIsNamed(t *testing.T) {
	_, err := Load("/nonexistent/rmsidecar.yaml", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/rmsidecar.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestPolicyArgs(t *testing.T) {
	c, err := Load(write(t, "policies:\n  stack: samr\n  samr:\n    hp: 0.5\n    bp: 0.1\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	type samrCfg struct {
		HP   float64 `yaml:"hp"`
		BP   float64 `yaml:"bp"`
		STaC float64 `yaml:"stac"`
	}
	cfg := samrCfg{HP: 0.2, BP: 0.2, STaC: 0.3}
	if err := PolicyArgs(c.Policies.Settings).Decode("samr", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg != (samrCfg{HP: 0.5, BP: 0.1, STaC: 0.3}) {
		t.Fatalf("cfg = %+v", cfg)
	}
	bad := PolicyArgs{"samr": {"hpp": 1}}
	if err := bad.Decode("samr", &cfg); err == nil || !strings.Contains(err.Error(), "policies.samr") || !strings.Contains(err.Error(), "hpp") {
		t.Fatalf("err = %v", err)
	}
	if err := PolicyArgs(nil).Decode("late", &cfg); err != nil {
		t.Fatal(err)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := Secret("hunter2")
	if s.String() != "******" {
		t.Fatal("secret printed")
	}
	c := HTTP{Token: s}
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), string(j)} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("secret in %s", out)
		}
	}
}

func TestBearerTokenFromFile(t *testing.T) {
	f := write(t, "  tok-1  \nsecond line ignored\n")
	got, err := HTTP{TokenFile: f}.BearerToken()
	if err != nil || got != "tok-1" {
		t.Fatalf("BearerToken = %q, %v; want tok-1", got, err)
	}
	if got, _ := (HTTP{Token: "inline"}).BearerToken(); got != "inline" {
		t.Fatalf("inline token = %q", got)
	}
}

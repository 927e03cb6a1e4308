package hdfslocality

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2/hadoopconf"
	"github.com/prometheus/client_golang/prometheus"
)

func TestConfigFromConfDirs(t *testing.T) {
	tests := []struct {
		dir        string
		ns         string
		rpc, http  string
		kerberos   bool
		topology   string
		clientAddr string
	}{
		{"testdata/conf-ha", "mycluster", "nn1.example.com:8020,nn2.example.com:8020",
			"http://nn1.example.com:9870,http://nn2.example.com:50070", false, "TOPOLOGY", "nn1.example.com:8020,nn2.example.com:8020"},
		{"testdata/conf-simple", "", "namenode.example.com:9000", "http://namenode.example.com:9870", false, "", "namenode.example.com:9000"},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.dir), func(t *testing.T) {
			conf, err := LoadConf(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ConfigFromHadoop(conf)
			if err != nil {
				t.Fatal(err)
			}
			if c.Nameservice != tc.ns || strings.Join(c.RPCAddrs, ",") != tc.rpc || strings.Join(c.HTTPAddrs, ",") != tc.http ||
				c.Kerberos != tc.kerberos || c.TopologyFile != tc.topology || strings.Join(c.ClientOptions.Addresses, ",") != tc.clientAddr {
				t.Fatalf("config = %+v", c)
			}
			if c.ClientOptions.KerberosClient != nil {
				t.Fatal("kerberos client set without kerberos")
			}
		})
	}
}

func TestConfigFromHadoopKeys(t *testing.T) {
	tests := []struct {
		name      string
		conf      hadoopconf.HadoopConf
		http, rpc string
		kerberos  bool
		err       string
	}{
		{name: "rpc-address only", conf: hadoopconf.HadoopConf{"dfs.namenode.rpc-address": "nn:8020"},
			rpc: "nn:8020", http: "http://nn:9870"},
		{name: "default port", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn"},
			rpc: "nn:8020", http: "http://nn:9870"},
		{name: "deprecated key", conf: hadoopconf.HadoopConf{"fs.default.name": "hdfs://old:9000"},
			rpc: "old:9000", http: "http://old:9870"},
		{name: "explicit http", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn:8020", "dfs.namenode.http-address": "web.example.com:50070"},
			rpc: "nn:8020", http: "http://web.example.com:50070"},
		{name: "single ns suffixed http", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn:8020", "dfs.nameservices": "ns1", "dfs.namenode.http-address.ns1": "nn:1234"},
			rpc: "nn:8020", http: "http://nn:1234"},
		{name: "https only", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn:8020", "dfs.http.policy": "HTTPS_ONLY"},
			rpc: "nn:8020", http: "https://nn:9871"},
		{name: "ha https defaults", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://ns", "dfs.ha.namenodes.ns": "a,b",
			"dfs.namenode.rpc-address.ns.a": "h1:8020", "dfs.namenode.rpc-address.ns.b": "h2", "dfs.http.policy": "HTTPS_ONLY",
			"dfs.namenode.https-address.ns.a": "h1:9999"},
			rpc: "h1:8020,h2:8020", http: "https://h1:9999,https://h2:9871"},
		{name: "ha nameservice with port", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://ns:8020", "dfs.ha.namenodes.ns": "a",
			"dfs.namenode.rpc-address.ns.a": "h1:8020"},
			rpc: "h1:8020", http: "http://h1:9870"},
		{name: "ha without defaultFS", conf: hadoopconf.HadoopConf{"dfs.nameservices": "ns", "dfs.ha.namenodes.ns": "a",
			"dfs.namenode.rpc-address.ns.a": "h1:8020"},
			rpc: "h1:8020", http: "http://h1:9870"},
		{name: "kerberos", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn:8020", "hadoop.security.authentication": "Kerberos",
			"dfs.namenode.kerberos.principal": "nn/_HOST@EXAMPLE.COM"},
			rpc: "nn:8020", http: "http://nn:9870", kerberos: true},
		{name: "nothing", conf: hadoopconf.HadoopConf{"dfs.replication": "3"}, err: "no NameNode address"},
		{name: "not hdfs", conf: hadoopconf.HadoopConf{"fs.defaultFS": "file:///"}, err: "fs.defaultFS=\"file:///\": scheme \"file\" is not hdfs"},
		{name: "ha missing rpc", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://ns", "dfs.ha.namenodes.ns": "a,b", "dfs.namenode.rpc-address.ns.a": "h1:8020"},
			err: "dfs.namenode.rpc-address.ns.b: missing"},
		{name: "bad http", conf: hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn:8020", "dfs.namenode.http-address": "nn"},
			err: "dfs.namenode.http-address: \"nn\": want host:port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigFromHadoop(tc.conf)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(c.RPCAddrs, ",") != tc.rpc || strings.Join(c.HTTPAddrs, ",") != tc.http || c.Kerberos != tc.kerberos {
				t.Fatalf("config = %+v", c)
			}
			if tc.kerberos && (c.ClientOptions.KerberosClient == nil || c.ClientOptions.KerberosServicePrincipleName != "nn/_HOST") {
				t.Fatalf("kerberos client options = %+v", c.ClientOptions)
			}
		})
	}
}

func TestLoadConfErrors(t *testing.T) {
	if _, err := LoadConf(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no core-site.xml") {
		t.Fatalf("empty dir: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "core-site.xml"), []byte("<configuration><property>"), 0o644)
	if _, err := LoadConf(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("bad xml: %v", err)
	}
}

// writeConf writes a minimal conf dir pointing RPC at rpc and WebHDFS at
// httpAddr.
func writeConf(t *testing.T, rpc, httpAddr string, extra string) string {
	t.Helper()
	dir := t.TempDir()
	core := `<configuration>
  <property><name>fs.defaultFS</name><value>hdfs://` + rpc + `</value></property>` + extra + `
</configuration>`
	hdfsSite := `<configuration>
  <property><name>dfs.namenode.http-address</name><value>` + httpAddr + `</value></property>
</configuration>`
	os.WriteFile(filepath.Join(dir, "core-site.xml"), []byte(core), 0o644)
	os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(hdfsSite), 0o644)
	return dir
}

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestNewFromConfDir(t *testing.T) {
	nn := newFakeNN(t, nil)
	abs, _ := filepath.Abs("testdata/topology.txt")
	dir := writeConf(t, closedPort(t), strings.TrimPrefix(nn.srv.URL, "http://"),
		`<property><name>net.topology.table.file.name</name><value>`+abs+`</value></property>`)
	reg := prometheus.NewRegistry()
	// The NameNode RPC port is closed: construction must still succeed
	// (the sidecar starts during an HDFS outage) and lookups degrade.
	r, err := NewFromConfDir(dir, Options{Registerer: reg, User: "alice", DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.racks.(*TopologyTable); !ok {
		t.Fatalf("topology table not loaded: %T", r.racks)
	}
	res, err := r.Resolve(context.Background(), []string{"/data/in"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, ErrUnavailable) && !strings.Contains(res[0].Err.Error(), "connect namenode") {
		t.Fatalf("result err = %v", res[0].Err)
	}
	if got := metricValue(t, reg, "rmsidecar_locality_errors_total", "reason", "unavailable"); got != 1 {
		t.Fatalf("errors{unavailable} = %v", got)
	}

	// Kerberos configured but no client: a start-up error naming the key.
	kdir := writeConf(t, "nn:8020", "nn:9870", `<property><name>hadoop.security.authentication</name><value>kerberos</value></property>`)
	if _, err := NewFromConfDir(kdir, Options{}); err == nil || !strings.Contains(err.Error(), "hadoop.security.authentication=kerberos") {
		t.Fatalf("kerberos without client: %v", err)
	}
	// A broken topology file named by the conf is a start-up error.
	bad := filepath.Join(t.TempDir(), "topo")
	os.WriteFile(bad, []byte("h1 /r1\nh2\n"), 0o644)
	tdir := writeConf(t, "nn:8020", "nn:9870", `<property><name>net.topology.table.file.name</name><value>`+bad+`</value></property>`)
	if _, err := NewFromConfDir(tdir, Options{User: "u"}); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Fatalf("bad topology: %v", err)
	}
	// Same registry twice: a clear error, not a panic.
	if _, err := NewFromConfDir(dir, Options{Registerer: reg, User: "u"}); err == nil || !strings.Contains(err.Error(), "register metrics") {
		t.Fatalf("double registration: %v", err)
	}
}

func TestLoadConfFiles(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "mini.xml")
	os.WriteFile(one, []byte(`<?xml version="1.0"?><configuration>
<property><name>fs.defaultFS</name><value>hdfs://localhost:41000</value></property>
<property><name>dfs.namenode.http-address</name><value>127.0.0.1:41001</value></property>
</configuration>`), 0o644)
	conf, err := LoadConfFiles("testdata/conf-simple/core-site.xml", one)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFromHadoop(conf)
	if err != nil {
		t.Fatal(err)
	}
	if c.RPCAddrs[0] != "localhost:41000" || c.HTTPAddrs[0] != "http://127.0.0.1:41001" {
		t.Fatalf("later file should win: %+v", c)
	}
	if _, err := LoadConfFiles(filepath.Join(dir, "nope.xml")); err == nil {
		t.Fatal("missing file accepted")
	}
	os.WriteFile(one, []byte("<configuration><property>"), 0o644)
	if _, err := LoadConfFiles(one); err == nil || !strings.Contains(err.Error(), one) {
		t.Fatalf("bad xml: %v", err)
	}
}

package hdfslocality

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	hdfs "github.com/colinmarc/hdfs/v2"
	"github.com/colinmarc/hdfs/v2/hadoopconf"
)

// Hadoop's default ports (Hadoop 3).
const (
	defaultRPCPort   = "8020"
	defaultHTTPPort  = "9870"
	defaultHTTPSPort = "9871"
)

// Config is what the package derives from a Hadoop configuration.
type Config struct {
	// Nameservice is the HA nameservice in use, "" without HA.
	Nameservice string
	// RPCAddrs are NameNode client-protocol addresses (host:port), one per
	// HA NameNode.
	RPCAddrs []string
	// HTTPAddrs are NameNode WebHDFS base URLs, parallel to RPCAddrs.
	HTTPAddrs []string
	// Kerberos is true when hadoop.security.authentication=kerberos.
	Kerberos bool
	// TopologyFile is net.topology.table.file.name, if set.
	TopologyFile string
	// ClientOptions for colinmarc's client, from hdfs.ClientOptionsFromConf
	// with Addresses replaced by RPCAddrs (colinmarc merges every
	// nameservice's addresses; we want the default filesystem's only).
	// KerberosClient is a placeholder when Kerberos is on; User is unset.
	ClientOptions hdfs.ClientOptions
}

// LoadConf reads core-site.xml and hdfs-site.xml from dir, or from
// HADOOP_CONF_DIR / HADOOP_HOME when dir is "".
func LoadConf(dir string) (hadoopconf.HadoopConf, error) {
	var (
		conf hadoopconf.HadoopConf
		err  error
	)
	where := dir
	if dir == "" {
		where = "HADOOP_CONF_DIR or HADOOP_HOME/conf"
		conf, err = hadoopconf.LoadFromEnvironment()
	} else {
		conf, err = hadoopconf.Load(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("hdfslocality: hadoop conf %s: %w", where, err)
	}
	if conf == nil {
		return nil, fmt.Errorf("hdfslocality: hadoop conf %s: no core-site.xml, hdfs-site.xml or mapred-site.xml found", where)
	}
	return conf, nil
}

// LoadConfFiles reads Hadoop configuration XML files by name, later files
// overriding earlier ones; for a single file such as the one
// MiniHadoopClusterManager -writeConfig writes, which hadoopconf.Load (one
// directory, fixed file names) cannot read.
func LoadConfFiles(paths ...string) (hadoopconf.HadoopConf, error) {
	conf := hadoopconf.HadoopConf{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("hdfslocality: hadoop conf: %w", err)
		}
		var doc struct {
			Property []struct {
				Name  string `xml:"name"`
				Value string `xml:"value"`
			} `xml:"property"`
		}
		if err := xml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("hdfslocality: hadoop conf %s: %w", p, err)
		}
		for _, prop := range doc.Property {
			conf[prop.Name] = prop.Value
		}
	}
	return conf, nil
}

// ConfigFromHadoop derives NameNode addresses and security settings. Errors
// name the configuration key at fault.
func ConfigFromHadoop(conf hadoopconf.HadoopConf) (Config, error) {
	c := Config{
		Kerberos:     strings.EqualFold(strings.TrimSpace(conf["hadoop.security.authentication"]), "kerberos"),
		TopologyFile: strings.TrimSpace(conf["net.topology.table.file.name"]),
	}
	https := strings.EqualFold(strings.TrimSpace(conf["dfs.http.policy"]), "HTTPS_ONLY")
	httpKey, httpPort, scheme := "dfs.namenode.http-address", defaultHTTPPort, "http"
	if https {
		httpKey, httpPort, scheme = "dfs.namenode.https-address", defaultHTTPSPort, "https"
	}

	fsKey := "fs.defaultFS"
	defaultFS := strings.TrimSpace(conf[fsKey])
	if defaultFS == "" {
		fsKey = "fs.default.name"
		defaultFS = strings.TrimSpace(conf[fsKey])
	}
	var authority string
	if defaultFS != "" {
		u, err := url.Parse(defaultFS)
		if err != nil {
			return c, fmt.Errorf("hdfslocality: %s=%q: %w", fsKey, defaultFS, err)
		}
		if u.Scheme != "hdfs" {
			return c, fmt.Errorf("hdfslocality: %s=%q: scheme %q is not hdfs", fsKey, defaultFS, u.Scheme)
		}
		authority = u.Host
	}

	// HA: the default filesystem names a nameservice, or there is exactly
	// one nameservice and no default filesystem.
	ns := ""
	if name := hostOf(authority); authority != "" && conf["dfs.ha.namenodes."+name] != "" {
		ns = name // "hdfs://ns"; a stray port after the nameservice is tolerated
	} else if authority == "" {
		if nss := trimmedList(conf["dfs.nameservices"]); len(nss) == 1 && conf["dfs.ha.namenodes."+nss[0]] != "" {
			ns = nss[0]
		}
	}

	if ns != "" {
		c.Nameservice = ns
		ids := trimmedList(conf["dfs.ha.namenodes."+ns])
		for _, id := range ids {
			rpcKey := "dfs.namenode.rpc-address." + ns + "." + id
			rpc := strings.TrimSpace(conf[rpcKey])
			if rpc == "" {
				return c, fmt.Errorf("hdfslocality: %s: missing (listed in dfs.ha.namenodes.%s)", rpcKey, ns)
			}
			rpc = withPort(rpc, defaultRPCPort)
			hk := httpKey + "." + ns + "." + id
			h, err := httpBase(conf[hk], rpc, httpPort, scheme)
			if err != nil {
				return c, fmt.Errorf("hdfslocality: %s: %w", hk, err)
			}
			c.RPCAddrs = append(c.RPCAddrs, rpc)
			c.HTTPAddrs = append(c.HTTPAddrs, h)
		}
	} else {
		rpc := ""
		switch {
		case authority != "":
			rpc = withPort(authority, defaultRPCPort)
		case conf["dfs.namenode.rpc-address"] != "":
			rpc = withPort(strings.TrimSpace(conf["dfs.namenode.rpc-address"]), defaultRPCPort)
		}
		if rpc == "" {
			return c, errors.New("hdfslocality: no NameNode address: set fs.defaultFS (hdfs://host:port or hdfs://nameservice) or dfs.namenode.rpc-address")
		}
		hk := httpKey
		raw := conf[hk]
		if nss := trimmedList(conf["dfs.nameservices"]); raw == "" && len(nss) == 1 {
			// A single non-HA nameservice may use the suffixed key.
			hk = httpKey + "." + nss[0]
			raw = conf[hk]
		}
		h, err := httpBase(raw, rpc, httpPort, scheme)
		if err != nil {
			return c, fmt.Errorf("hdfslocality: %s: %w", hk, err)
		}
		c.RPCAddrs = []string{rpc}
		c.HTTPAddrs = []string{h}
	}

	c.ClientOptions = hdfs.ClientOptionsFromConf(conf)
	c.ClientOptions.Addresses = append([]string(nil), c.RPCAddrs...)
	if !c.Kerberos {
		c.ClientOptions.KerberosClient = nil
	}
	return c, nil
}

// httpBase builds a WebHDFS base URL from an http-address value; an empty
// value or a wildcard host (0.0.0.0, the usual bind-all setting) takes the
// host of the RPC address.
func httpBase(raw, rpc, defPort, scheme string) (string, error) {
	raw = strings.TrimSpace(raw)
	host, port := hostOf(rpc), defPort
	if raw != "" {
		h, p, err := net.SplitHostPort(raw)
		if err != nil {
			return "", fmt.Errorf("%q: want host:port: %w", raw, err)
		}
		if h != "" && h != "0.0.0.0" && h != "::" {
			host = h
		}
		port = p
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}

func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

func withPort(addr, port string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(strings.Trim(addr, "[]"), port)
}

func trimmedList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

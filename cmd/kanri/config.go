package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/telemetry"
)

// Config is Kanri's whole configuration. Each setting comes from a flag,
// else from its environment variable, else from its default.
type Config struct {
	Addr     string
	DataDir  string
	Store    string
	Cosmos   CosmosConfig
	LogLevel slog.Level
	// SessionSecret keys the session cookies; generated into the data
	// directory when empty.
	SessionSecret string
	// TwoFactorKey seals the TOTP secrets (32 bytes, hex or base64);
	// generated into the data directory when empty.
	TwoFactorKey string
	// ArchiveKeys seal the backup archives: age keys, one per line, the
	// current one first; generated into the data directory when empty.
	ArchiveKeys string
	// BootstrapEmail and BootstrapPassword are the first administrator's
	// credentials, used only on the first start.
	BootstrapEmail    string
	BootstrapPassword string
	// BcryptCost is the password hashing cost; 12 unless lowered for tests.
	BcryptCost int
	// MaxActive is how many requests run their handlers at once
	// (web.Config.MaxActive); 0 means everyone at once.
	MaxActive int
	// RepairGrace is how old a pending change of a user count must be
	// before the repair settles it: longer than any create or delete takes.
	RepairGrace time.Duration
	// HealthInterval is how often the services of the catalog are checked;
	// 0 turns the checks off.
	HealthInterval time.Duration
	// DNSServer is the DNS server domain verification asks (host:port);
	// empty for the system's resolver.
	DNSServer string
	// DomainRecheck is how often verified domains are looked up again; 0
	// turns it off.
	DomainRecheck time.Duration
	// SSOAllowPrivate lets identity providers be at loopback and private
	// addresses, over plain HTTP (local testing only; docs/sso.md).
	SSOAllowPrivate bool
	// WebhookAllowPrivate lets webhook endpoints be at loopback and
	// private addresses, over plain HTTP: for local testing only.
	WebhookAllowPrivate bool
	// UsageFlush is how long an API call may wait to be written to the
	// usage log.
	UsageFlush time.Duration
	// Blob is the blob store of file contents: BlobLocal or BlobAzure.
	Blob string
	// BlobDir is the directory of the local blob store; <data dir>/blobs
	// when empty.
	BlobDir string
	// Azure is the Azure Blob Storage account of KANRI_BLOB=azure.
	Azure AzureConfig
	// PublicURL is the address the server's users reach it at
	// (https://kanri.example.jp), without a trailing slash; "" for the
	// address each request was sent to.
	PublicURL string
	// TrustedProxies are the reverse proxies whose X-Forwarded-Proto,
	// X-Forwarded-Host and X-Forwarded-For are believed; none when empty.
	TrustedProxies []netip.Prefix
	// DebugAddr, when set, serves the Go profiler (net/http/pprof) and
	// the metrics on their own listener; keep it on a loopback or private
	// address.
	DebugAddr string
	// MetricsToken, when set, serves the metrics on the public listener
	// too, at /metrics, to requests with it as their bearer token.
	MetricsToken string
	// Tracing says where traces go (none without an endpoint).
	Tracing telemetry.Tracing
}

// CosmosConfig is the configuration of the Cosmos DB store.
type CosmosConfig struct {
	Endpoint           string
	Key                string
	Database           string
	InsecureSkipVerify bool
}

// AzureConfig names an Azure Blob Storage account and container: a
// connection string, or an endpoint with an account name and key.
type AzureConfig struct {
	ConnectionString string
	Endpoint         string
	Account, Key     string
	Container        string
}

// Blob store backends.
const (
	BlobLocal = "local"
	BlobAzure = "azure"
)

// Store backends.
const (
	StoreEmbedded = "embedded"
	StoreCosmos   = "cosmos"
)

// setting describes one configuration value for flags, environment and help.
type setting struct {
	flag, env, def, usage string
	dst                   *string
}

// parseConfig reads the configuration from args and getenv. It returns
// flag.ErrHelp after printing the help for -h or --help.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	var (
		cfg                                                                                                                                                               Config
		insecure, ssoPrivate, webhookPrivate, logLevel, storeBackend, bcryptCost, repairGrace, healthInterval, domainRecheck, usageFlush, proxies, maxActive, traceSample string
	)
	settings := []setting{
		{"addr", "KANRI_ADDR", ":8080", "address to listen on", &cfg.Addr},
		{"data-dir", "KANRI_DATA_DIR", "./data", "directory of the embedded store and generated secrets", &cfg.DataDir},
		{"store", "KANRI_STORE", StoreEmbedded, "document store: embedded or cosmos", &storeBackend},
		{"cosmos-endpoint", "KANRI_COSMOS_ENDPOINT", "", "Cosmos DB account endpoint, e.g. https://acct.documents.azure.com:443/", &cfg.Cosmos.Endpoint},
		{"cosmos-key", "KANRI_COSMOS_KEY", "", "Cosmos DB account key (prefer the environment variable)", &cfg.Cosmos.Key},
		{"cosmos-database", "KANRI_COSMOS_DATABASE", "management-app", "Cosmos DB database name", &cfg.Cosmos.Database},
		{"cosmos-insecure-skip-verify", "KANRI_COSMOS_INSECURE_SKIP_VERIFY", "false", "skip TLS verification of the Cosmos endpoint; ONLY for a local test server", &insecure},
		{"log-level", "KANRI_LOG_LEVEL", "info", "log level: debug, info, warn or error", &logLevel},
		{"session-secret", "KANRI_SESSION_SECRET", "", "at least 32 random bytes (hex or base64) keying session cookies; generated into the data directory when empty. Set it when several instances serve one store", &cfg.SessionSecret},
		{"two-factor-key", "KANRI_TWO_FACTOR_KEY", "", "32 random bytes (hex or base64) encrypting the two-factor (TOTP) secrets at rest; generated into the data directory when empty. Set it when several instances serve one store, and keep it: without it no enrolled user can sign in", &cfg.TwoFactorKey},
		{"archive-keys", "KANRI_ARCHIVE_KEYS", "", "age keys (AGE-SECRET-KEY-1…, one per line, the current one first) sealing the backup archives; generated into archive.keys in the data directory when empty. Set them when several instances serve one store, and keep every key an archive was sealed with: without it the archive cannot be restored (see kanri archive-keys rotate)", &cfg.ArchiveKeys},
		{"bootstrap-admin-email", "KANRI_BOOTSTRAP_ADMIN_EMAIL", "admin@example.com", "username and e-mail of the first administrator of the operator's tenant \"privileged\" (first start only)", &cfg.BootstrapEmail},
		{"bootstrap-admin-password", "KANRI_BOOTSTRAP_ADMIN_PASSWORD", "", "password of the first administrator; generated and logged once when empty (first start only)", &cfg.BootstrapPassword},
		{"bcrypt-cost", "KANRI_BCRYPT_COST", "12", "bcrypt cost of password hashes (12; lower only in tests)", &bcryptCost},
		{"health-interval", "KANRI_HEALTH_INTERVAL", "1m", "how often the health endpoints of the catalog's services are called; 0 turns the checks off", &healthInterval},
		{"dns-server", "KANRI_DNS_SERVER", "", "DNS server (host or host:port) that domain verification asks; the system's resolver when empty", &cfg.DNSServer},
		{"sso-allow-private", "KANRI_SSO_ALLOW_PRIVATE", "false", "let the tenants' identity providers be at loopback, private and link-local addresses, over plain http://; ONLY for local testing", &ssoPrivate},
		{"webhook-allow-private", "KANRI_WEBHOOK_ALLOW_PRIVATE", "false", "let the tenants' webhook endpoints be at loopback, private and link-local addresses, over http://; ONLY for local testing", &webhookPrivate},
		{"domain-recheck-interval", "KANRI_DOMAIN_RECHECK_INTERVAL", "6h", "how often the TXT records of verified domains are looked up again; 0 turns it off", &domainRecheck},
		{"api-usage-flush", "KANRI_API_USAGE_FLUSH", "1s", "how long an API call may wait before the usage log writes it (calls are written in batches off the request path)", &usageFlush},
		{"blob", "KANRI_BLOB", BlobLocal, "blob store of file contents: local (a directory) or azure (Azure Blob Storage)", &cfg.Blob},
		{"blob-dir", "KANRI_BLOB_DIR", "", "directory of the file contents (the local blob store); <data-dir>/blobs when empty", &cfg.BlobDir},
		{"azure-storage-connection-string", "KANRI_AZURE_STORAGE_CONNECTION_STRING", "", "Azure Storage connection string of KANRI_BLOB=azure (prefer the environment variable); or give the endpoint, account and key", &cfg.Azure.ConnectionString},
		{"azure-storage-endpoint", "KANRI_AZURE_STORAGE_ENDPOINT", "", "blob endpoint of the Azure Storage account, e.g. https://ACCOUNT.blob.core.windows.net/", &cfg.Azure.Endpoint},
		{"azure-storage-account", "KANRI_AZURE_STORAGE_ACCOUNT", "", "name of the Azure Storage account", &cfg.Azure.Account},
		{"azure-storage-key", "KANRI_AZURE_STORAGE_KEY", "", "shared key of the Azure Storage account (prefer the environment variable)", &cfg.Azure.Key},
		{"azure-storage-container", "KANRI_AZURE_STORAGE_CONTAINER", "kanri", "container of Kanri's blobs; created if missing", &cfg.Azure.Container},
		{"public-url", "KANRI_PUBLIC_URL", "", "the address users reach Kanri at, e.g. https://kanri.example.jp: the API's document, its problem types and the links Kanri writes use it; the address each request was sent to when empty", &cfg.PublicURL},
		{"trusted-proxies", "KANRI_TRUSTED_PROXIES", "", "comma-separated addresses or CIDR ranges of the reverse proxies in front of Kanri, e.g. 10.0.0.0/8,127.0.0.1: only requests from them have X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For believed; none when empty", &proxies},
		{"debug-addr", "KANRI_DEBUG_ADDR", "", "address of the Go profiler (/debug/pprof/) and the metrics (/metrics), e.g. 127.0.0.1:6060; off when empty. Never expose it publicly", &cfg.DebugAddr},
		{"metrics-token", "KANRI_METRICS_TOKEN", "", "when set, the metrics are served on the public listener too, at /metrics, to requests with this bearer token (at least 32 characters; prefer the environment variable)", &cfg.MetricsToken},
		{"otlp-endpoint", "KANRI_OTLP_ENDPOINT", "", "OTLP/HTTP address of an OpenTelemetry collector that receives the traces, e.g. http://otel-collector:4318; no traces when empty", &cfg.Tracing.Endpoint},
		{"trace-sample", "KANRI_TRACE_SAMPLE", "1", "share of the traces begun here that are kept, from 0 to 1 (a request in a sampled trace of its caller's is always kept)", &traceSample},
		{"max-active-requests", "KANRI_MAX_ACTIVE_REQUESTS", "auto", "how many requests run at once, the others waiting their turn in order (live streams, downloads and uploads give their place up once they start): auto is 4 per CPU on the embedded store, whose requests use the CPUs, and no limit on Cosmos DB, whose requests mostly wait on it; 0 is no limit", &maxActive},
		{"repair-grace", "KANRI_REPAIR_GRACE", "2m", "how old a pending user-count change must be before the repair after a crash settles it", &repairGrace},
	}
	fs := flag.NewFlagSet("kanri", flag.ContinueOnError)
	fs.SetOutput(out)
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		fs.StringVar(s.dst, s.flag, def, s.usage)
	}
	fs.Usage = func() { printHelp(out, settings) }
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (see kanri --help)", fs.Arg(0))
	}

	var errs []error
	cfg.Store = storeBackend
	switch cfg.Store {
	case StoreEmbedded:
	case StoreCosmos:
		if cfg.Cosmos.Endpoint == "" || cfg.Cosmos.Key == "" {
			errs = append(errs, errors.New("KANRI_STORE=cosmos needs KANRI_COSMOS_ENDPOINT and KANRI_COSMOS_KEY"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown store %q: use %q or %q", cfg.Store, StoreEmbedded, StoreCosmos))
	}
	switch cfg.Blob {
	case BlobLocal:
	case BlobAzure:
		a := cfg.Azure
		if a.ConnectionString == "" && (a.Endpoint == "" || a.Account == "" || a.Key == "") {
			errs = append(errs, errors.New("KANRI_BLOB=azure needs KANRI_AZURE_STORAGE_CONNECTION_STRING, or KANRI_AZURE_STORAGE_ENDPOINT, KANRI_AZURE_STORAGE_ACCOUNT and KANRI_AZURE_STORAGE_KEY"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown blob store %q: use %q or %q", cfg.Blob, BlobLocal, BlobAzure))
	}
	b, err := strconv.ParseBool(insecure)
	if err != nil {
		errs = append(errs, fmt.Errorf("KANRI_COSMOS_INSECURE_SKIP_VERIFY: %q is not true or false", insecure))
	}
	cfg.Cosmos.InsecureSkipVerify = b
	if cfg.SSOAllowPrivate, err = strconv.ParseBool(ssoPrivate); err != nil {
		errs = append(errs, fmt.Errorf("KANRI_SSO_ALLOW_PRIVATE: %q is not true or false", ssoPrivate))
	}
	if cfg.WebhookAllowPrivate, err = strconv.ParseBool(webhookPrivate); err != nil {
		errs = append(errs, fmt.Errorf("KANRI_WEBHOOK_ALLOW_PRIVATE: %q is not true or false", webhookPrivate))
	}
	if f, err := strconv.ParseFloat(traceSample, 64); err != nil || f < 0 || f > 1 {
		errs = append(errs, fmt.Errorf("KANRI_TRACE_SAMPLE: %q is not a number from 0 to 1", traceSample))
	} else {
		cfg.Tracing.Sample = f
	}
	if cfg.Tracing.Endpoint != "" {
		if u, err := url.Parse(cfg.Tracing.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("KANRI_OTLP_ENDPOINT: %q is not an http:// or https:// address", cfg.Tracing.Endpoint))
		}
	}
	if cfg.MetricsToken != "" && len(cfg.MetricsToken) < 32 {
		errs = append(errs, errors.New("KANRI_METRICS_TOKEN: at least 32 characters, so that it cannot be guessed"))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		errs = append(errs, fmt.Errorf("KANRI_LOG_LEVEL: %q is not debug, info, warn or error", logLevel))
	}
	cost, err := strconv.Atoi(bcryptCost)
	if err != nil || cost < 4 || cost > 31 {
		errs = append(errs, fmt.Errorf("KANRI_BCRYPT_COST: %q is not a number from 4 to 31", bcryptCost))
	}
	cfg.BcryptCost = cost
	switch n, err := strconv.Atoi(maxActive); {
	case maxActive == "auto" && cfg.Store == StoreEmbedded:
		cfg.MaxActive = 4 * runtime.GOMAXPROCS(0)
	case maxActive == "auto":
		cfg.MaxActive = 0
	case err != nil || n < 0:
		errs = append(errs, fmt.Errorf("KANRI_MAX_ACTIVE_REQUESTS: %q is not auto or a number of requests", maxActive))
	default:
		cfg.MaxActive = n
	}
	if cfg.RepairGrace, err = time.ParseDuration(repairGrace); err != nil || cfg.RepairGrace < 0 {
		errs = append(errs, fmt.Errorf("KANRI_REPAIR_GRACE: %q is not a duration such as 2m", repairGrace))
	}
	if cfg.HealthInterval, err = time.ParseDuration(healthInterval); err != nil || cfg.HealthInterval < 0 {
		errs = append(errs, fmt.Errorf("KANRI_HEALTH_INTERVAL: %q is not a duration such as 1m (0 for no checks)", healthInterval))
	}
	if cfg.DomainRecheck, err = time.ParseDuration(domainRecheck); err != nil || cfg.DomainRecheck < 0 {
		errs = append(errs, fmt.Errorf("KANRI_DOMAIN_RECHECK_INTERVAL: %q is not a duration such as 6h (0 for none)", domainRecheck))
	}
	if cfg.UsageFlush, err = time.ParseDuration(usageFlush); err != nil || cfg.UsageFlush <= 0 {
		errs = append(errs, fmt.Errorf("KANRI_API_USAGE_FLUSH: %q is not a positive duration such as 1s", usageFlush))
	}
	if cfg.BootstrapPassword != "" {
		if msg := kanri.CheckPassword(cfg.BootstrapPassword); msg != "" {
			errs = append(errs, fmt.Errorf("KANRI_BOOTSTRAP_ADMIN_PASSWORD does not meet the password policy: %s", i18n.Translate(i18n.English, msg)))
		}
	}
	if cfg.PublicURL, err = parsePublicURL(cfg.PublicURL); err != nil {
		errs = append(errs, fmt.Errorf("KANRI_PUBLIC_URL: %w", err))
	}
	if cfg.TrustedProxies, err = parseProxies(proxies); err != nil {
		errs = append(errs, fmt.Errorf("KANRI_TRUSTED_PROXIES: %w", err))
	}
	if cfg.Addr == "" {
		errs = append(errs, errors.New("KANRI_ADDR must not be empty"))
	}
	if cfg.DataDir == "" {
		errs = append(errs, errors.New("KANRI_DATA_DIR must not be empty"))
	}
	return cfg, errors.Join(errs...)
}

// parsePublicURL checks the server's public address: an absolute http or
// https URL of a host alone (no path, query or credentials). It returns it
// without a trailing slash; "" stays "".
func parsePublicURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URL", s)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return "", fmt.Errorf("%q is not an absolute http or https URL such as https://kanri.example.jp", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.Trim(u.Path, "/") != "":
		return "", fmt.Errorf("%q has more than a scheme and a host: Kanri is served at the root of its address", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// parseProxies reads a comma-separated list of addresses and CIDR ranges.
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(f); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		} else {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR range such as 10.0.0.0/8", f)
		}
	}
	return out, nil
}

func printHelp(out io.Writer, settings []setting) {
	fmt.Fprintf(out, `kanri: the Kanri multi-tenant management console.

Usage: kanri [flags]             serve the console
       kanri check [flags]       check (and with -repair, repair) the embedded store's file
       kanri backup -out FILE    copy the embedded store's file, from the running server if there is one

Every setting is a flag or an environment variable; a flag wins.

`)
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(out, "  -%s  (%s, default %s)\n      %s\n", s.flag, s.env, def, s.usage)
	}
	fmt.Fprintln(out, "\n"+strings.TrimSpace(`
Endpoints: /healthz answers 200 while the process runs; /readyz answers 200
when the document store is reachable.`))
}

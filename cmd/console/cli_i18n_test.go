package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestCLILanguage(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.utf8"}, "zh-CN"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"},
		{map[string]string{"LC_ALL": "zh_CN.GB18030@stroke"}, "zh-CN"},
		{map[string]string{"LANG": "fr_FR.UTF-8"}, "en"},
	} {
		if got := cliLanguage(env(tc.vars)); got != tc.want {
			t.Errorf("cliLanguage(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
}

// TestCLIInChinese: with LANG=zh_CN.UTF-8 the usage, the results and the
// errors (a rejected file's lines included) are in Chinese; with no LANG
// the same commands answer in English.
func TestCLIInChinese(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"id":"a1","session_id":"s1","turn":1,"role":"user","text":"以后提交前都要先跑 go vet。","occurred_at":"2026-06-01T10:00:00Z"}
`), 0o600)
	os.WriteFile(bad, []byte(`{"id":"b1","session_id":"s1","turn":1,"role":"wizard","text":"x","occurred_at":"2026-06-01T10:00:00Z"}
`), 0o600)
	zh := env(map[string]string{"LANG": "zh_CN.UTF-8"})
	runIn := func(getenv func(string) string, args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir, "--no-demo"), getenv, nil, &out, &out)
		return out.String(), err
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"help"}, zh, nil, &help, &help); err != nil || !strings.Contains(help.String(), "用法：") || strings.Contains(help.String(), "Usage:") {
		t.Errorf("help: %v\n%s", err, help.String())
	}
	checks := []struct {
		args      []string
		ok        bool
		zh, en    string
		notInZh   string
		errNotOut bool
	}{
		{[]string{"import", good, "--project", "dev", "--create"}, true, "已从 " + good, "event(s) into dev from", "Imported", false},
		{[]string{"import", bad, "--project", "dev"}, false, `第 1 行：role "wizard" 不是 user、assistant、tool 之一`, `line 1: role "wizard" is not one of user, assistant, tool`, "is not one of", false},
		{[]string{"audit", "verify"}, true, "审计链已验证", "Audit chain verified", "verified", false},
		{[]string{"export"}, false, "export 需要 --project", "export needs --project", "needs", true},
		{[]string{"export", "--project", "nope"}, false, "项目 nope：", "project nope:", "project nope", true},
		{[]string{"eval", "list"}, true, "名称", "NAME", "ORIGIN", false},
		{[]string{"user", "add", "--help"}, false, "参数（括号内为环境变量）：", "Flags (environment variables in brackets):", "Flags", false},
	}
	for _, c := range checks {
		for _, lang := range []string{"zh-CN", "en"} {
			getenv, want := zh, c.zh
			if lang == "en" {
				getenv, want = env(nil), c.en
			}
			out, err := runIn(getenv, c.args...)
			if (err == nil) != c.ok {
				t.Errorf("%s %v: err = %v\n%s", lang, c.args, err, out)
			}
			if c.errNotOut && err != nil {
				out = err.Error()
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s %v: no %q in\n%s", lang, c.args, want, out)
			}
			if lang == "zh-CN" && strings.Contains(out, c.notInZh) {
				t.Errorf("%s %v: English %q left in\n%s", lang, c.args, c.notInZh, out)
			}
		}
	}
}

// TestServeInChinese: the first start's address and passwords notice follow
// LANG too.
func TestServeInChinese(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--no-demo"},
			env(map[string]string{"LANG": "zh_CN.UTF-8"}), strings.NewReader(""), out, &syncBuffer{})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s := out.String(); strings.Contains(s, "Mnemo 控制台：http://") {
			if !strings.Contains(s, "首次启动：已创建以下账号") || strings.Contains(s, "First start") {
				t.Errorf("output:\n%s", s)
			}
			return
		}
	}
	t.Fatalf("no Chinese address printed:\n%s", out.String())
}

// englishWord finds an English word left in a Chinese message once the
// flag names, environment variable names, quoted values and the words a
// user types as values (text, json, true...) are taken out.
var (
	cliTokens   = regexp.MustCompile(`--[\w-]+|"[^"]*"|\b[A-Z][A-Z0-9_]+\b|\b(?:text|json|true|false|debug|info|warn|error|host|localhost|postgres|SQLite|API|URL|console|help|backup|restore|s|m|h|1h30m)\b|[\w./-]+\.(?:db|jsonl)\b|/[\w./-]+`)
	englishWord = regexp.MustCompile(`[A-Za-z]{3,}`)
)

// TestCLIErrorsInChinese: the configuration's and the flag package's errors
// (unknown flag, a bad value of each kind, a missing value, a bad
// environment variable, a file the system refuses) are sentences of the
// catalogs: Chinese under LANG=zh_CN, English otherwise, and every kind
// of error comes out once, with the usage before it.
func TestCLIErrorsInChinese(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, []byte("x"), 0o600)
	for _, c := range []struct {
		args []string
		vars map[string]string
		en   string
	}{
		{[]string{"serve", "--bogus"}, nil, "unknown flag --bogus (see --help)"},
		{[]string{"serve", "--addr"}, nil, "--addr needs a value"},
		{[]string{"serve", "--beat-interval", "zz"}, nil, `--beat-interval "zz": not a duration`},
		{[]string{"serve", "--max-line-bytes", "x1"}, nil, `--max-line-bytes "x1": not a whole number`},
		{[]string{"serve", "--llm-price-in", "cheap"}, nil, `--llm-price-in "cheap": not a number`},
		{[]string{"serve", "--no-demo=maybe"}, nil, `--no-demo="maybe": want true or false`},
		{[]string{"serve", "--log-format", "xml", "--log-level", "loud"}, nil, `--log-format "xml": want text or json` + "\n" + `--log-level "loud": want debug, info, warn or error`},
		{[]string{"serve", "--addr", "nonsense"}, nil, `--addr "nonsense": want host:port`},
		{[]string{"serve", "--tls-cert", "c.pem"}, nil, "--tls-cert and --tls-key go together"},
		{[]string{"serve"}, map[string]string{"MNEMO_SESSION_IDLE": "soon", "MNEMO_NO_DEMO": "maybe"}, `MNEMO_NO_DEMO="maybe": want true or false` + "\n" + `MNEMO_SESSION_IDLE="soon": not a duration`},
		{[]string{"serve"}, map[string]string{"MNEMO_MAX_IMPORT_BYTES": "-1"}, `MNEMO_MAX_IMPORT_BYTES="-1": not a positive number of bytes`},
		{[]string{"serve", "--database", "mysql://db"}, nil, `want a postgres:// URL`},
		{[]string{"user", "list", "--data", filepath.Join(notDir, "sub")}, nil, "data directory: " + notDir + ": not a directory"},
		{[]string{"backup", "--data", dir}, nil, "backup needs --out FILE"},
	} {
		for _, lang := range []string{"zh_CN.UTF-8", ""} {
			vars := map[string]string{"LANG": lang}
			for k, v := range c.vars {
				vars[k] = v
			}
			var out, errOut bytes.Buffer
			err := run(context.Background(), c.args, env(vars), nil, &out, &errOut)
			if err == nil {
				t.Errorf("%s %v: no error", lang, c.args)
				continue
			}
			msg := err.Error()
			if strings.Contains(errOut.String(), msg) {
				t.Errorf("%s %v: the error is printed before it is returned:\n%s", lang, c.args, errOut.String())
			}
			if lang == "" {
				if !strings.Contains(msg, c.en) {
					t.Errorf("%v: %q, want %q", c.args, msg, c.en)
				}
				continue
			}
			if w := englishWord.FindString(cliTokens.ReplaceAllString(msg, "")); w != "" || msg == c.en {
				t.Errorf("%v: English %q left in %q", c.args, w, msg)
			}
		}
	}
}

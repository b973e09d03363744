package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

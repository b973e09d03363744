package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// A failure's cause is read through the shapes real tools print around it:
// the exception a chain ends with after its label ("Caused by: …"), a
// heading line that opens with the error ("…; to add it:"), a value with
// the reason aside in brackets, and BuildKit's step and elapsed time
// before each line.
func TestLessonCauseShapes(t *testing.T) {
	for _, tc := range []struct {
		tool, call, failed, fix, passed string
		cause, absent                   string
	}{
		{"Bash", "[Bash] ./gradlew bootRun",
			"FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':bootRun'.\n\nCaused by: java.lang.IllegalArgumentException: maximumPoolSize must be greater than 0",
			"The pool size is read from DB_POOL_SIZE, which is unset. I'll give the property a default in application.yml.",
			"Started OrdersApplication in 3.4 seconds", "maximumPoolSize must be greater than 0", "Build failed"},
		{"shell", "[shell] go test ./auth/...",
			"# example.com/api/auth\nauth/limit.go:12:2: no required module provides package golang.org/x/time/rate; to add it:\n\tgo get golang.org/x/time/rate\nFAIL\texample.com/api/auth [setup failed]",
			"The limiter package is no dependency yet. I'll add golang.org/x/time to go.mod with go get.",
			"ok  \texample.com/api/auth\t0.2s", "no required module provides package", "to add it"},
		{"mcp__stripe__create_refund", "[mcp__stripe__create_refund] {\"charge\":\"ch_3Pq2\",\"amount\":\"49.99\"}",
			"Error: Invalid integer: 49.99 (amount must be an integer in the smallest currency unit)",
			"[mcp__stripe__create_refund] {\"charge\":\"ch_3Pq2\",\"amount\":4999}",
			"{\"id\":\"re_1\",\"status\":\"succeeded\"}", "amount must be an integer in the smallest currency unit", "49.99"},
		{"Bash", "[Bash] docker build -t shop .",
			"#5 12.41 npm error code EBADENGINE\nERROR: failed to solve: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
			"The build stage still runs Node 20. I'll change the build stage's base image to node:22.",
			"#9 naming to docker.io/library/shop done", "EBADENGINE", "12.41"},
	} {
		events := []string{"user", "Please get this working.", "assistant", tc.call, "tool:" + tc.tool + ":failed", tc.failed}
		if strings.HasPrefix(tc.fix, "[") {
			events = append(events, "assistant", tc.fix)
		} else {
			events = append(events, "assistant", tc.fix, "assistant", tc.call)
		}
		events = append(events, "tool:"+tc.tool+":passed", tc.passed)
		ex := mustExtract(t, session(events...))
		var lessons []string
		for _, it := range ex.Items {
			if it.Type == governance.TypeLesson {
				lessons = append(lessons, it.Statement)
			}
		}
		if len(lessons) != 1 || !strings.Contains(lessons[0], tc.cause) || strings.Contains(lessons[0], tc.absent) {
			t.Errorf("%s: lessons %q, want one naming %q without %q", tc.call, lessons, tc.cause, tc.absent)
		}
	}
}

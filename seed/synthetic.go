package seed

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Synthetic data for benchmarks and load tests: sessions of ten events in
// Chinese or English shaped like real agent conversations (a request, a
// plan, a failed then passing tool check, a durable preference from a
// shared pool so that sessions repeat each other, a one-off wish, small
// talk), with random filler so no two texts are the same.

var (
	zhFiller = strings.Fields("故宫 环球影城 王府井 兵马俑 回民街 西湖 灵隐寺 外滩 豫园 迪士尼 高铁 地铁 酒店 早餐 门票 排队 亲子 公园 博物馆 夜市")
	enFiller = strings.Fields("linter commit test failure fix deploy review branch merge coverage build cache retry timeout schema index query budget invoice report")
	zhPrefs  = []string{"以后每次出行都要把下午两点到四点空出来给孩子午睡", "以后行程里每天最多安排两个景点", "以后订酒店都要选带早餐的", "以后每次都把路线检查结论附上", "以后出行都优先坐高铁不坐飞机"}
	enPrefs  = []string{"From now on, always run the linter before committing", "Always add a test for every bug fix from now on", "From now on, keep pull requests under 400 lines", "Always write the changelog entry in the same commit from now on", "From now on, always pin dependency versions"}
)

// SyntheticEvents returns n events (n rounded down to whole sessions of
// ten) for subjects of 100 sessions each, deterministic for a seed.
func SyntheticEvents(n int, seed uint64) []*governance.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]*governance.Event, 0, n)
	filler := func(words []string, sep string, k int) string {
		var b strings.Builder
		for j := 0; j < k; j++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(sep)
		}
		return b.String()
	}
	for s := 0; len(out)+10 <= n; s++ {
		session := fmt.Sprintf("syn-%d-%d", seed, s)
		subject := fmt.Sprintf("user-%d", s/100)
		zh := r.IntN(2) == 0
		var lines []struct {
			role         governance.Role
			text, status string
		}
		add := func(role governance.Role, status, text string) {
			lines = append(lines, struct {
				role         governance.Role
				text, status string
			}{role, text, status})
		}
		if zh {
			add(governance.RoleUser, "", "帮我安排一下行程："+filler(zhFiller, "、", 4+r.IntN(4)))
			add(governance.RoleAssistant, "", "初稿："+filler(zhFiller, "，", 8+r.IntN(8)))
			add(governance.RoleTool, governance.StatusFailed, `{"result":"failed","reason":"cross_district","detail":"`+filler(zhFiller, "与", 2)+`相距太远"}`)
			add(governance.RoleAssistant, "", "同一片区的景点放在同一天："+filler(zhFiller, "，", 6))
			add(governance.RoleTool, governance.StatusPassed, `{"result":"passed"}`)
			add(governance.RoleUser, "", zhPrefs[r.IntN(len(zhPrefs))]+"。")
			add(governance.RoleAssistant, "", "好的，记住了。")
			add(governance.RoleUser, "", "这次想去"+filler(zhFiller, "", 1)+"看看。")
			add(governance.RoleUser, "", "今天天气真不错。")
			add(governance.RoleAssistant, "", "是的，祝旅途愉快！"+filler(zhFiller, " ", 3))
		} else {
			add(governance.RoleUser, "", "Please help with "+filler(enFiller, " ", 5+r.IntN(5)))
			add(governance.RoleAssistant, "", "Plan: "+filler(enFiller, " ", 10+r.IntN(10)))
			add(governance.RoleTool, governance.StatusFailed, "FAIL: "+filler(enFiller, " ", 4)+"expected 3 got 4")
			add(governance.RoleAssistant, "", "Fixed the cause: "+filler(enFiller, " ", 6))
			add(governance.RoleTool, governance.StatusPassed, "ok all tests passed")
			add(governance.RoleUser, "", enPrefs[r.IntN(len(enPrefs))]+".")
			add(governance.RoleAssistant, "", "Noted.")
			add(governance.RoleUser, "", "This time, skip the "+filler(enFiller, "", 1)+" step.")
			add(governance.RoleUser, "", "Thanks, nice weather today.")
			add(governance.RoleAssistant, "", "You're welcome! "+filler(enFiller, " ", 3))
		}
		for i, l := range lines {
			e := &governance.Event{
				ID: fmt.Sprintf("%s-%d", session, i), SessionID: session, SubjectID: subject, Turn: i + 1,
				Role: l.role, Text: l.text, Status: l.status,
				OccurredAt: base.Add(time.Duration(len(out)) * time.Second),
			}
			if l.role == governance.RoleTool {
				e.Tool = "checker"
			}
			e.Normalize()
			out = append(out, e)
		}
	}
	return out
}

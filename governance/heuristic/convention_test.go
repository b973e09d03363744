package heuristic_test

import "testing"

// TestConventionClasses checks, on phrasings of its own (none from a
// corpus), the classes the blind batch found weak: conventions stated as
// how things are done here (a generic subject in the habitual present, a
// scope such as here, this repo, every, 统一, 都), an instruction whose scope
// over every time to come is a clause or a sentence of its own ("…. That
// applies in general."), and the look-alikes that carry those words about
// the task at hand: a spec of the change being made, what happens now, a
// proposal asked about, someone else's or a quoted rule, a set at hand,
// the agent's work under way.
func TestConventionClasses(t *testing.T) {
	durable := []string{
		"We rebase onto main here, so keep your branches short.",
		"For future reference we pin every dependency, no caret ranges.",
		"Migrations live in db/migrate next to the schema, not in scripts/.",
		"Every public handler goes through the auth middleware, no exceptions to that.",
		"Prefer small interfaces over big ones when you design a package.",
		"Keep commit subjects under 50 chars, the changelog tool cuts them.",
		"I want the linter run before every push, not only at the end.",
		"Write docs in British English even when I type American spelling.",
		"Don't regenerate the lockfile on your own, renovate does that.",
		"Don't tag releases by hand, maintainers here use the release script.",
		"Ask before deleting a file. That applies in general, not just now.",
		"I've said this before: no secrets in the test fixtures.",
		"Don't force-push to shared branches. Learned that the hard way.",
		"When you add an endpoint put its handler in api/, that goes for every service in the repo.",
		"Never run the seed script in this container.",
		"接口返回统一用 snake_case 字段名。",
		"错误码统一放在 errors 包里，不要散落在各处。",
		"我们这边发版都走 release 分支，不直接从 main 打 tag。",
		"我们团队的提交信息都用英文写。",
		"数据库迁移永远是我来执行，你只写脚本。",
		"涉及支付的接口都要加幂等键。",
		"参数校验放在 handler 层，这条所有服务都适用。",
		"我喜欢小函数，之后就按这个习惯写。",
	}
	lookAlikes := []string{
		"For the rest of this migration, always keep the old column readable.",
		"Always stub the clock in the tests you're adding right now.",
		`"Every service must expose metrics" is what the old guideline said, nobody follows it.`,
		"Tests live in a weird place in that old repo I showed you.",
		"把超时逻辑改成五秒，永远不要阻塞主线程。",
		"每次用户切换标签页都会重新拉一次数据，改成缓存。",
		"网络断开的时候 worker 永远不要退出，等重连。",
		"发版统一走 release 分支、永远不直接推 main，这样可以吗？",
		"老李定的规矩是每个表都要有注释，不过没人管。",
		"哈哈，“以后一律先写文档”，说得容易。",
		"下面这几个接口，每次改完都跑一下集成测试。",
		"以前我们团队发版都要停机。",
		"把这几个文件的缩进统一一下。",
	}
	checkDurable(t, durable, lookAlikes)
}

// TestTopicAndRepeatClasses checks, on phrasings of its own, the classes
// the second blind batch found open: a topic and its rule after a colon, a
// kind that never goes somewhere, a scope over a kind or over the team,
// uncertainty conditions, a lead for the future before an instruction,
// keeping to what was just said everywhere; in Chinese an exasperated
// repeat, "再遇到X，先Y", a fix deferred to 以后 after 不过, a principle that
// always applies, a team's 标准, a project's choice with its alternative
// ruled out, a kind then 禁止. The look-alikes carry those words about the
// task at hand: a check being added, a consequence that keeps happening, a
// fix asked for now, a thing or event at hand, the code's behaviour and the
// change it calls for now, a prohibition that already happened.
func TestTopicAndRepeatClasses(t *testing.T) {
	durable := []string{
		"Go: errors wrapped with %w always, no bare returns of err.",
		"terraform modules: every resource gets a cost-center tag.",
		"API keys never go in logs, not even truncated.",
		"For migrations, always write the down step too.",
		"Just so you know, every release on this team has to be signed off by QA first.",
		"Review checklist for this repo: tests, docs, changelog.",
		"If you're unsure whether an API is public, treat it as public and keep it stable.",
		"Note for the future — the staging DB is shared, don't truncate tables there.",
		"Tabs for Makefiles, spaces elsewhere. Stick to that in everything you write for me.",
		"I'd rather you split a PR than pile on changes. That goes for everything.",
		"讲了多少次了，生成的代码别手改",
		"下次再碰到依赖冲突，先查 go.mod，别直接升级",
		"先合了吧。不过以后涉及公共接口的改动先写设计文档",
		"测试里不要 sleep，这个原则一直适用",
		"提交前跑 lint，这是我们团队的发布标准",
		"我们这个项目用 zerolog，不要用 logrus",
		"生产配置禁止提交到仓库，放到密钥管理里",
	}
	lookAlikes := []string{
		"加一条 pre-commit hook，禁止提交大于 5MB 的文件",
		"每次一升级 node 测试就全红，烦死了",
		"重试每次都要带退避，现在是立刻重试，修一下",
		"这个 script 里日志一律打到 stderr，方便调试",
		"在这次发版结束之前，新功能一律放到 feature flag 后面",
		"gitleaks 禁止了这个提交，所以没推上去",
		"The webhook should fire every time an order ships, so move the call out of the batch job.",
	}
	checkDurable(t, durable, lookAlikes)
}

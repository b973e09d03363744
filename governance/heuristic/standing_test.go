package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestStandingInstructionClasses checks the classes of standing
// instructions and prohibitions found missing on phrasings written after
// the corpora (each class once or twice, in English and Chinese): tag
// questions ("…, ok?", "…，好吗？"), lead-ins ("Remember: …", "Keep in
// mind, …"), prohibitions without exception ("Under no circumstances …",
// "Don't you ever …", "Don't do that again", 千万不要, 严禁, 不许, 不准),
// ending a habit ("Quit …ing"), scopes that mean from now on ("For all
// future …", "Henceforth"), rules stated as rules ("Our rule is …", 立个规矩,
// 养成习惯), fillers before an opener ("No more …"); and look-alikes that
// are none ("Never mind", "Stop the server", 不准确, 不得不).
func TestStandingInstructionClasses(t *testing.T) {
	durable := []string{
		"From here on, write the changelog entry in the same commit as the change.",
		"Whenever you touch the billing code, ping me before merging.",
		"Each time you open a PR, link the ticket in the description.",
		"I'd rather you use tabs than spaces in this repo, always.",
		"Please never push directly to the release branch.",
		"Don't you ever delete migration files again.",
		"Quit adding emojis to commit messages.",
		"Stop rewriting my tests without asking.",
		"No more force pushes, ok?",
		"You should always check the lockfile into git.",
		"Make sure you always run the linter first, every time.",
		"Remember: prod config is read-only for you.",
		"In future, prefer table-driven tests.",
		"The rule here is that every exported function has a doc comment.",
		"Avoid mocks in the storage tests from now on.",
		"For all future tasks, run gofmt before committing.",
		"Under no circumstances should you run terraform apply.",
		"I never want to see print debugging left in a commit.",
		"Keep using the same naming you did there, it's good.",
		"Let's make it a rule: no TODOs without an issue number.",
		"以后提交前都先跑一下 go vet。",
		"今后所有接口都要写单元测试。",
		"别再往 main 分支直接推代码了。",
		"千万不要删除迁移文件。",
		"记得每次改完配置都要重启服务。",
		"从现在开始，注释统一用英文写。",
		"每次发布前都要先更新版本号。",
		"不许在测试里连生产数据库。",
		"下次别用 var 了，一律用 const 或 let。",
		"你以后不要再自己改我的测试了。",
		"请一直用中文回复我。",
		"永远不要把密钥写进代码里。",
		"提交信息一律用英文，记住了。",
		"这个项目里绝对不能用 panic。",
		"养成习惯：改完代码先跑测试再说完成。",
		"Going on, every migration needs a down step.",
		"Don't ever skip the pre-commit hooks.",
		"Never, ever commit .env files.",
		"Quit using sudo for npm installs.",
		"Enough with the giant PRs — keep them under 300 lines from now on.",
		"Keep in mind: staging shares the prod database.",
		"Bear in mind, the CI runners have no network.",
		"Under no circumstances touch the payments schema.",
		"I never want a force push on shared branches.",
		"Henceforth, name branches after the ticket.",
		"For all future reviews, flag any new dependency.",
		"Our rule is one logical change per commit.",
		"Don't do that again.",
		"Stop guessing API names, look them up.",
		"No more committing generated files, alright?",
		"Every time you add an endpoint, update the OpenAPI spec.",
		"以后别再用 fmt.Println 调试了。",
		"严禁在周五发布。",
		"你不许跳过代码审查。",
		"不准把日志级别改成 debug 提交。",
		"禁止在循环里查数据库。",
		"绝对不要在公共分支上 rebase。",
		"以后所有时间都用 UTC 存，好吗？",
		"记住，测试数据不能放在仓库里。",
		"养成习惯，每个 PR 都写测试说明。",
		"这个仓库千万不能提交大文件。",
		"立个规矩：接口改动必须先写文档。",
		"每次部署完都在群里说一声。",
	}
	oneOff := []string{
		"Can you run the tests now?",
		"Please push this branch.",
		"Delete the temp folder.",
		"Why did the build fail?",
		"Thanks, that looks good.",
		"Stop, that's enough for today.",
		"Rename this variable to count.",
		"Never mind, I fixed it myself.",
		"Don't worry about the warnings for now.",
		"帮我看看这个报错。",
		"先把这个函数删了。",
		"今天就到这里吧。",
		"这次别跑集成测试了，太慢。",
		"为什么这个测试挂了？",
		"好的，谢谢。",
		"Don't run the migrations yet.",
		"Stop the server for a second.",
		"Never heard of that library, what is it?",
		"Remember the bug from yesterday? It's back.",
		"Ok, push it.",
		"Quit the REPL and rerun.",
		"不准确的那个数字我改好了。",
		"我不得不重启一下电脑。",
		"先别提交，我再看看。",
		"这个函数是干什么的？",
		"把这段注释删掉。",
		"明天再说吧，好吗？",
	}
	checkDurable(t, durable, oneOff)
}

// TestStandingInstructionsHeldOut keeps three batches of phrasings written
// after the classes above were in place, each before the extractor saw
// it, the way people talk to coding agents (requests that carry a rule,
// conventions of the project, rules over everything of a kind, and their
// look-alikes: predictions, stories, complaints, deferrals, directions).
//   - Batch 1 (44 instructions, 28 look-alikes): 22 instructions missed,
//     2 look-alikes taken for one. Fixed by class: "Can you always …" and
//     "I'd like you to stop …ing" (the request is a filler), other words for
//     every time and from now on (any time you, moving forward, 每回, 从今往后,
//     下回开始, 之后每次), rules named as such (rule of thumb, as a general rule,
//     make a habit of, 切记, 牢记), project scopes ("don't use lodash in this
//     codebase", "we use … here"), "every new X must …", "not allowed to",
//     "under any circumstances" in a negation, 永远用/永远要; predictions
//     ("From now on it should work") and 以后再说 are none.
//   - Batch 2 (28, 22), run once after: 2 missed (再也别, 记好了), 5 taken
//     (going forward with, we never + past tense, anytime you're ready, "in
//     the future this module will", 每回都这样). Fixed by class.
//   - Batch 3 (20, 14), run once after that: 1 missed (any time a test is
//     flaky, quarantine it), 5 taken (it'll, never + past tense, 以后有空再…吧,
//     每回…我都头疼, 往后翻). Fixed by class.
//
// One miss is left: "For the record, I want all SQL in the store package
// only." (a wish over everything of a kind, without a marker).
func TestStandingInstructionsHeldOut(t *testing.T) {
	durable := []string{
		"btw, going forwards please use pnpm, not npm.",
		"Please always add a test when you fix a bug.",
		"Can you always run prettier before committing?",
		"Could you never use `any` in the TypeScript code?",
		"Always squash before merging, thanks.",
		"Note to self and you: we use conventional commits here.",
		"Every single time you change the schema, regenerate the types.",
		"Any time you add a dependency, tell me why first.",
		"Next time, and every time after, ask before deleting files.",
		"Stick to the existing error handling style from now on.",
		"Do not, under any circumstances, edit the vendored code.",
		"You're not allowed to run migrations against prod. Ever.",
		"Never again commit directly to develop.",
		"Make a habit of running go mod tidy after adding imports.",
		"As a general rule, keep functions under 50 lines.",
		"Moving forward, let's write the docs in British English.",
		"please don't ever touch the CI config without asking",
		"don't use lodash in this codebase",
		"ALWAYS run the full test suite before saying it's fixed.",
		"I'd like you to stop adding comments that just repeat the code.",
		"Please stop using relative imports.",
		"You keep forgetting the license header — every new file needs one.",
		"Rule of thumb for this repo: no global variables.",
		"记住以后提交前先 rebase 一下 main。",
		"以后写 SQL 都用参数化查询，别拼字符串。",
		"每回改接口都要同步更新文档。",
		"你以后记得先跑 lint 再提交。",
		"从今往后，变量名都用驼峰。",
		"以后不管什么情况都不要动生产库。",
		"下回开始，PR 描述里都写上测试步骤。",
		"请你以后别再把调试代码提交上来了。",
		"一定要记住：密码不能写进日志。",
		"这个仓库的规矩是先写测试再写实现。",
		"永远用 UTC 存时间。",
		"每次改完都跑一下 go test ./...，别忘了。",
		"麻烦以后回复都简短一点。",
		"不要再用 sudo 装 npm 包了。",
		"之后所有新文件都加上版权头。",
		"切记不要在主分支上强推。",
		"以后都别自动格式化我没改的文件。",
		"注意：任何时候都不能删用户数据。",
		"请始终用中文写提交说明。",
		"别动 vendor 目录，任何时候都别动。",
		// Batch 2.
		"Could you always write the commit body in past tense?",
		"Anytime you rename a file, update the imports in the same commit.",
		"Going forwards, the API returns snake_case keys.",
		"I want you to stop pasting whole files back at me.",
		"We never merge on red CI.",
		"Don't add new npm dependencies in this repo without asking.",
		"Every new endpoint must have an integration test.",
		"Moving forward, all logs go through slog.",
		"As a rule of thumb, prefer composition over inheritance here.",
		"Never again leave a TODO without a ticket.",
		"Please, always double-check the migration order.",
		"You are not allowed to bump major versions on your own.",
		"Would you keep using the repository pattern for new stores?",
		"Each and every time you generate code, run gofmt on it.",
		"Never use floats for money.",
		"Make a habit of reading the CHANGELOG before upgrading.",
		"以后改数据库结构都要先写迁移脚本。",
		"切记，生产环境的配置不要提交。",
		"从今往后不要再用 jQuery。",
		"下次开始，提交前都先跑单元测试。",
		"每回发版都要打 tag。",
		"牢记：不能在前端存 token。",
		"之后每次改样式都截个图给我。",
		"永远要检查返回的 error。",
		"任何时候都不要硬编码密码。",
		"请以后都用 pnpm 装依赖。",
		"再也别在 README 里放密钥了。",
		"你给我记好了，周五不上线。",
		// Batch 3.
		"Would you always show me the plan before editing more than one file?",
		"From now on, keep answers under ten lines unless I ask for more.",
		"Any time a test is flaky, quarantine it and open an issue.",
		"We always use UUIDv7 for new primary keys.",
		"Never log request bodies, they contain PII.",
		"Stop opening draft PRs for me.",
		"Don't rename public functions in this project without a deprecation.",
		"Every new migration must be reversible.",
		"I need you to always cite the file and line when you claim something.",
		"Please don't ever run rm -rf in my home directory.",
		"As a general rule, no network calls in unit tests.",
		"Going forward, review your own diff before handing it over.",
		"以后每个函数都要写注释。",
		"从下次开始别再问我要不要跑测试，直接跑。",
		"再也不要改我的 .bashrc。",
		"记好了：发布只能在周二。",
		"每回新建表都加上 created_at 字段。",
		"切记不要在日志里打印 token。",
		"往后提交说明都用中文写。",
		"任何时候都别关掉 CI 检查。",
	}
	lookAlikes := []string{
		"Can you always-on the logging for this one run?",
		"The build always fails on the first try, weird.",
		"I never got that error before.",
		"From now on it should work, right?",
		"Stop. Let me read the diff first.",
		"Don't push yet, I'm still reviewing.",
		"What does `always_inline` do in this file?",
		"Every time I run it I get a timeout, any idea why?",
		"Remember to push when you're done.",
		"No, that's not what I meant.",
		"Keep going.",
		"ok cool, ship it",
		"This function never returns nil, does it?",
		"Let's stop here for today.",
		"Please fix the failing test in billing.",
		"以后再说吧。",
		"这个测试每次都挂，为什么？",
		"记录一下这个报错的堆栈。",
		"别急，我先看一下日志。",
		"永远都是这个错误，烦死了。",
		"先不要提交。",
		"今天先到这里。",
		"这个函数以后可能会删掉。",
		"每次启动都很慢，能优化吗？",
		"不要用这个分支，用 dev 那个。",
		"帮我把 README 翻译成英文。",
		"禁止吸烟的标志放哪个文件了？",
		"你记得昨天那个 bug 吗？",
		// Batch 2.
		"Could you check why the linter is angry?",
		"Going forward with the refactor now, ok?",
		"It always times out on my laptop.",
		"We never figured out that flaky test.",
		"I want you to look at the failing job.",
		"Every new run takes ten minutes, ugh.",
		"Don't bother with the docs today.",
		"Stop the watcher, it's eating CPU.",
		"Anytime you're ready.",
		"In the future this module will be deleted.",
		"Can you explain the diff?",
		"Never seen this error before, what is it?",
		"之后所有的测试都过了。",
		"下次再看吧。",
		"每回都这样，真烦。",
		"永远都是这个 bug。",
		"以后再处理这个警告。",
		"这个接口任何时候都可能超时。",
		"你能解释一下这个函数吗？",
		"切一个新分支出来。",
		"先把日志级别调高一点。",
		"好了，今天先这样。",
		// Batch 3.
		"Would you show me the plan for this change?",
		"From now on it'll be faster, I hope.",
		"Any time now the deploy should finish.",
		"We always had problems with this library.",
		"Never thought this would work, nice.",
		"Stop for a moment and summarize.",
		"Don't rename that one, it's used by the mobile app.",
		"Every new build is slower than the last, why?",
		"以后有空再重构吧。",
		"下次再说。",
		"每回看到这个报错我都头疼。",
		"记一下这个命令。",
		"往后翻一页看看。",
		"任何时候都可以问我。",
	}
	checkDurable(t, durable, lookAlikes)
}

// TestStandingScopeInOtherWords checks the classes behind the third blind
// batch's misses and false positives, on phrasings of its own: an
// instruction whose standing scope is said in a sentence or clause of its
// own ("…, keep that going", "Stick to it.", "note this: …", "…, is our
// rule, please follow in all files"), a rule named with its owner ("team
// convention is …", "one rule for the X: …"), a hedged wish ending in a
// question mark, a complaint about a habit before a prohibition ("you keep
// …ing. stop that, …"), a correction of the agent that sets a rule, and
// 永远不准 mid-sentence; and the look-alikes: a spec of code behaviour
// ("every time it fails, double …", "add a metric whenever …"), a quoted
// slogan attributed to others (", every" is not ", ever"), the change at
// hand (这个改动…就够了), a principle quoted to explain what was done
// (…的原则是“…”，所以…), thanks (每次…都靠你), a task kept going ("keep
// it going", "Stick to it, you're almost done") and a slip corrected.
func TestStandingScopeInOtherWords(t *testing.T) {
	durable := []string{
		"i like `ruff` better than `flake8` for the linting, keep that going",
		"In this repo every config file is YAML, not JSON. Stick to it.",
		"you'll be touching the deploy scripts often, so note this: we never hardcode a region",
		"no shell scripts longer than 50 lines, is our rule, please follow in all repos",
		"project convention is kebab-case for file names. don't use underscores",
		"one rule for the public API: no breaking changes without a deprecation notice.",
		"I'd sort of prefer if you didn't rename variables I didn't ask about going forward?",
		"you keep adding `console.log` calls to the handlers. stop that, use the logger",
		"Correction: staging is on port 8443, not 443. please keep that in mind for all curl commands in future",
		"密码这种东西永远不准写进日志里。",
	}
	lookAlikes := []string{
		"make the poller slow down: every time it gets a 429, wait twice as long, up to a minute",
		"add a metric whenever the queue grows past a thousand items",
		`"move fast and break things, ever onward" - every startup, every pitch deck`,
		"不用每次都跑集成测试，这个改动跑单元测试就够了。",
		"我们组长的原则是“永远不要信任输入”，所以这里又做了一次校验。",
		"谢谢，每次上线都靠你。",
		// Keeping a task going, not a rule; a slip corrected.
		"the migration is halfway, keep it going",
		"nice progress, let's keep this going",
		"Stick to it, you're almost done with the refactor.",
		"you keep asking me the same question. what's wrong?",
		"Correction: I meant the staging box, not prod.",
	}
	checkDurable(t, durable, lookAlikes)
}

// TestRetractionInItsOwnSentence: a retraction after words of its own
// sentence (after a dash or a comma) takes those words back, and only
// those: the sentence before it stands.
func TestRetractionInItsOwnSentence(t *testing.T) {
	durable := []string{
		"Honey jars are always labelled in grams. Round the prices, hmm, forget it.",
		"以后都用公斤记体重。改成按页报价——算了，不用了。",
	}
	lookAlikes := []string{
		"Always name the species first — actually, forget that, it's fine as it is.",
		"From now on, send every reminder two weeks early, scratch that.",
		"以后每次都提前两周——算了，还是按原来的吧。",
		"以后所有译稿都用英式拼写，算了，当我没说。",
	}
	checkDurable(t, durable, lookAlikes)
}

// TestAllDoModalZH: 都 after a topic followed by any modal of obligation
// (需要 as 要) distributes it over the topic; a 需要 of how long something
// takes does not.
func TestAllDoModalZH(t *testing.T) {
	checkDurable(t, []string{
		"寄往医院的包裹都需要当面签收。",
		"报价单都需要写明有效期。",
	}, []string{
		"每笔转账都需要三天才能到账。",
		"这些包裹昨天都需要重新包装，太麻烦了。",
	})
}

// TestRuleWithAnException: a rule with a clause of exception that names
// the weather ("unless it rains", 下雨除外) is a rule, not weather chat or
// the speaker's story, and a back-reference after it carries it.
func TestRuleWithAnException(t *testing.T) {
	for _, c := range []struct{ turn, keep string }{
		{"Hive inspections are on Saturdays unless it rains. Put that in every club newsletter you draft.", "Hive inspections"},
		{"蜂箱检查定在每周六，下雨除外。以后写通讯都按这个。", "蜂箱检查"},
		{"Deliveries to the allotments go out at 7am unless it snows. Keep that in mind for every rota.", "7am"},
	} {
		var got string
		for _, it := range mustExtract(t, session("user", c.turn)).Items {
			if it.Type == governance.TypePreference && it.Durable {
				got = it.Statement
			}
		}
		if !strings.Contains(got, c.keep) {
			t.Errorf("%q: standing rule %q, want one holding %q", c.turn, got, c.keep)
		}
	}
	checkDurable(t, nil, []string{
		"What's the weather like? Always so rainy there.",
		"Every time it rains, the basement floods.",
		"这几天天气怎么样？会下雨吗？",
	})
}

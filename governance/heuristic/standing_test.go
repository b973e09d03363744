package heuristic_test

import "testing"

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
	for _, s := range durable {
		if !detectsDurable(t, s) {
			t.Errorf("not taken as a standing instruction: %s", s)
		}
	}
	for _, s := range oneOff {
		if detectsDurable(t, s) {
			t.Errorf("taken as a standing instruction: %s", s)
		}
	}
}

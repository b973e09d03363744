package heuristic

// Word lists that drive the sentence patterns. Chinese entries are matched
// as substrings; English entries as lowercase phrases at word boundaries.
var (
	// Durable markers: the user says it holds from now on, or refers to a
	// standing arrangement ("老规矩", "as agreed").
	durableZH = []string{"以后", "今后", "往后", "从现在起", "从现在开始", "从今以后", "每次", "每一次", "每趟", "一直", "总是", "始终", "一律", "永远", "老规矩", "说好的", "说过的", "照旧"}
	durableEN = []string{"from now on", "always", "every time", "each time", "whenever", "going forward", "in future", "in the future", "from here on", "as usual", "as agreed", "as i said", "like i said"}

	// One-off markers: never durable, whatever else the sentence says.
	oneOffZH = []string{"这次", "这一次", "这趟", "这回", "本次", "仅此一次", "暂时"}
	oneOffEN = []string{"this time", "just this once", "this once", "for now", "for this trip", "for this one", "just for today"}

	// Scopes of the task at hand, and moments within it ("for this PR",
	// "一会儿要用"): what they bound holds only for now. Kept apart from the
	// one-off markers above, which the merger also drops.
	taskScopeEN = []string{"for this pr", "in this pr", "for this task", "for this change", "for this branch", "in this branch",
		"for this ticket", "for this commit", "in this commit", "in a minute", "in a bit", "later today",
		// Scopes narrower than the project.
		"in this file", "in this function", "in this method", "in this diff", "in this test", "this step"}
	taskScopeZH = []string{"一会儿", "一会", "待会", "等会", "等下", "稍后", "这个 PR", "这个PR", "这次提交", "这个分支上",
		"这个文件里", "这个函数里", "这一步",
		// The change at hand: "这个改动跑 `test_parser.py` 就够了".
		"这个改动", "这次改动", "这个修改", "这处改动"}
	// Days that bound what is said to them ("今天别再改数据库结构了", "not
	// today"), unless they open a time to come ("从今天开始", "from today on").
	dayScopeZH = []string{"今天", "今晚", "这周", "本周", "这两天"}
	dayScopeEN = []string{"today", "tonight", "this week", "this morning", "this afternoon"}

	// References to a standing arrangement: durable, and a directive too.
	standingZH = []string{"老规矩", "照旧", "一律", "说好的", "说过的"}

	// Directive cues: the sentence asks the agent to do or avoid something.
	directiveZH  = []string{"要", "得", "请", "记得", "别", "不用", "不必", "无需", "免", "务必", "必须", "一定", "需要", "留出", "空出", "附", "按", "优先", "尽量", "避免", "一律", "安排", "订"}
	modalEN      = []string{"please", "make sure", "remember to", "don't", "dont", "do not", "never", "should", "must", "need to", "needs to", "want you to", "i'd like", "i would like", "i want"}
	imperativeEN = map[string]bool{
		"always": true, "never": true, "ignore": true, "book": true, "run": true, "use": true, "skip": true, "keep": true,
		"attach": true, "add": true, "avoid": true, "make": true, "put": true, "include": true, "remember": true,
		"stop": true, "don't": true, "do": true, "send": true, "write": true, "check": true, "leave": true, "give": true,
		"plan": true, "schedule": true, "tell": true, "ask": true, "commit": true, "push": true, "test": true,
		"lint": true, "stick": true, "format": true, "prefer": true, "mention": true, "show": true, "reply": true, "answer": true,
		"call": true, "email": true, "cc": true, "sign": true, "let": true, "list": true, "mark": true, "open": true,
		"start": true, "pick": true, "choose": true, "reserve": true, "double-check": true, "verify": true,
	}

	// Wishes (with a one-off marker they make a one-off preference).
	wishZH = []string{"想", "希望", "打算", "倾向", "最好", "要"}
	wishEN = []string{"i want", "i'd like", "i would like", "we want", "we'd like", "i prefer", "we prefer", "i'd prefer", "i'd rather"}

	// Explicit likes and dislikes: a preference even without a marker.
	likeZH = []string{"喜欢", "偏好", "讨厌", "受不了", "更愿意", "不爱吃", "爱吃", "不吃"}
	likeEN = []string{"i prefer", "we prefer", "i'd prefer", "i like", "we like", "i love", "i hate", "i don't like", "i dislike", "i can't stand", "i'd rather"}

	// Reminders: a request that the agent keep something in mind.
	reminderZH = []string{"记得", "别忘了", "别忘记", "千万"}
	reminderEN = []string{"remember to", "make sure", "don't forget", "do not forget"}

	// Corrections of a slip: the message with the slip yields nothing.
	correctionZH = []string{"说错了", "口误", "打错了", "不对，是", "不对,是", "我是说", "更正一下"}
	correctionEN = []string{"sorry, i meant", "i meant", "correction:", "scratch that", "no wait", "typo:"}

	// Weather chat yields nothing.
	weatherZH = []string{"天气", "气温", "下雨", "降雨", "预报", "热不热", "冷不冷", "多少度", "这么热", "好热", "太热", "很热", "好冷", "太冷", "晴天", "阴天", "刮风", "雾霾", "晒"}
	weatherEN = []string{"weather", "forecast", "raining", "rain", "rainy", "snow", "snowing", "cloudy", "windy", "sunny", "temperature", "humid", "how hot", "so hot", "chilly"}

	// Greetings, thanks and acknowledgements; a sentence made only of these
	// is small talk.
	smallTalkZH = []string{"你好", "您好", "谢谢你", "谢谢您", "谢谢啦", "谢谢", "多谢", "感谢", "好的", "好嘞", "好啊", "好吧", "没问题", "辛苦了", "辛苦", "再见", "拜拜", "收到", "明白了", "明白", "太好了", "好", "行", "嗯", "哈哈", "啦", "呀", "哦", "噢", "啊"}
	smallTalkEN = []string{"hi", "hello", "hey", "thanks a lot", "thank you", "thanks", "ok", "okay", "yes", "yeah", "yep", "great", "cool", "sure", "bye", "good", "nice", "perfect", "go ahead", "sounds good", "awesome", "got it", "no problem"}

	// Leading fillers removed from statements.
	fillersZH = []string{"对了", "还有", "另外", "哦", "噢", "嗯", "那个", "然后", "其实", "好的", "好", "行", "谢谢", "还是老规矩", "老规矩", "上次说好的", "上次说过的", "说好的", "还是"}
	fillersEN = []string{"and", "also", "oh", "so", "btw", "by the way", "ok", "okay", "yes", "well", "one more thing", "plus", "hi", "hey", "thanks",
		"quick one", "one quick thing", "quick thing", "real quick", "heads up", "fyi", "ugh", "hmm"}

	// Facts.
	familyZH = []string{"女儿", "儿子", "孩子", "闺女", "宝宝", "老大", "老二", "老婆", "老公", "爱人"}
	factEN   = []string{"we're ", "we are ", "we use ", "our ", "i'm ", "i am ", "my "}
	// "we" and "our" stay the group's: "our dashboards" are not the user's.
	factENSub = []string{"We're ", "We are ", "We use ", "Our ", "The user is ", "The user is ", "The user's "}
)

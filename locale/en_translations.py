"""English for every msgid of the site (the msgids are the Japanese texts).

`python locale/en_translations.py` fills locale/en/LC_MESSAGES/django.po from this table
after `manage.py makemessages -l en`; then `manage.py compilemessages` (the .mo is committed).
"""

EN = {
    "選択したユーザーを利用停止にする": "Ban the selected users",
    "%(n)d 人を利用停止にしました。": "Banned %(n)d users.",
    "選択したユーザーの利用停止を解除する": "Unban the selected users",
    "%(n)d 人の利用停止を解除しました。": "Unbanned %(n)d users.",
    "APIトークンを再発行する": "Renew the API tokens",
    "%(n)d 件のトークンを再発行しました。": "Renewed %(n)d tokens.",
    "アカウント": "Accounts",
    "ユーザー名": "Username",
    "パスワード": "Password",
    "パスワード（確認）": "Password (again)",
    "パスワードが一致しません。": "The passwords do not match.",
    "自動更新": "Auto refresh",
    "手動": "Manual",
    "音でお知らせ": "Sound notice",
    "村人リストを会話の下に表示（↓リスト）": "Show the player list below the talk (↓List)",
    "言語": "Language",
    "ブラウザに合わせる": "As the browser says",
    "APIトークン": "API token",
    "リストを下に表示": "List below",
    "プロフィール": "Profile",
    "登録しました。ようこそ！": "You are registered. Welcome!",
    "APIトークンを新しくしました。": "Your API token has been renewed.",
    "設定を保存しました。": "Settings saved.",
    "参加と勝利の数": "Games played and won",
    "戦績": "Record",
    "%(g)s戦 %(w)s勝（勝率 %(r)s%%）": "%(g)s games, %(w)s wins (%(r)s%% won)",
    "突然死: %(n)s回": ("Sudden deaths: %(n)s", "Sudden deaths: %(n)s"),
    "陣営別": "By team",
    "役職別": "By role",
    "参加": "Played",
    "勝利": "Won",
    "参加した村": "Villages played",
    "村": "Village",
    "役職": "Role",
    "陣営": "Team",
    "結果": "Result",
    "生死": "Survived",
    "番地": "No.",
    "敗北": "Lost",
    "生存": "Alive",
    "死亡": "Dead",
    "まだ終わった村はありません。": "No finished village yet.",
    "ログイン": "Log in",
    "ユーザー登録": "Register",
    "パスワードを忘れたとき": "Forgot your password?",
    "パスワードの再設定": "Reset the password",
    "登録したメールアドレスを入力してください。再設定用のリンクを送ります。": (
        "Enter the e-mail address of your account; we will send a link to reset the password."
    ),
    "送信": "Send",
    "パスワードを変更しました": "Your password has been changed",
    "新しいパスワード": "New password",
    "パスワードを変更": "Change the password",
    "このリンクは使えません。もう一度やり直してください。": (
        "This link cannot be used. Please start again."
    ),
    "メールアドレスが登録されていれば、再設定用のリンクを送りました。": (
        "If the address belongs to an account, a link to reset the password is on its way."
    ),
    "%(site_name)s でパスワードの再設定が求められました。": (
        "A password reset was requested on %(site_name)s."
    ),
    "次のページで新しいパスワードを決めてください:": "Choose a new password on this page:",
    "ユーザー名:": "Username:",
    "戦績を見る": "See the record",
    "トークンを新しくする": "Renew the token",
    "ボットや外部クライアントは Authorization: Token <トークン> で API を使えます。": (
        "Bots and other clients use the API with Authorization: Token <token>."
    ),
    "画面の設定": "Screen settings",
    "保存": "Save",
    "登録する": "Register",
    "汝は人狼なりや？": "Are You a Werewolf?",
    "トップ": "Top",
    "過去ログ": "Past logs",
    "情報一覧": "Information",
    "ログアウト": "Log out",
    "登録": "Register",
    "切替": "Switch",
    "村の様子に戻る": "Back to the village",
    "%(name)sさん（あなた）と、もう一人を選んでください。": (
        "Choose one more player to pair with %(name)s (you)."
    ),
    "二人を選んでください。": "Choose two players.",
    "%(n)s秒": "%(n)s s",
    "する": "On",
    "しない": "Off",
    "設定": "Apply",
    "↑リスト": "↑List",
    "↓リスト": "↓List",
    "異議あり": "Objection",
    "村を作成する": "Create a village",
    "オプション": "Options",
    "%(min_phase_minutes)s分以上": "at least %(min_phase_minutes)s min",
    "%(n)s人以上の村で有効": "in force with %(n)s players or more",
    "%(n)s人以上の村でのみ有効です（この定員では無効）": (
        "only with %(n)s players or more (no effect at this capacity)"
    ),
    "作成": "Create",
    "死亡者": "The dead",
    "前へ": "Previous",
    "次へ": "Next",
    "エラー": "Error",
    "トップへ戻る": "Back to the top page",
    "霊界の会話": "Talk in heaven",
    "過去の発言と投票のログ": "Past talk and votes",
    "村に紛れ込んだ人狼を、話し合いと投票で見つけ出すゲームです。": (
        "Werewolves hide among the villagers: find them by talking and voting."
    ),
    "ログインして村を作成する": "Log in to create a village",
    "村の一覧": "Villages",
    "最近終わった村": "Recently ended",
    "ページはまだありません。": "No pages yet.",
    "目次": "Contents",
    "キック投票": "Kick vote",
    "%(needed)s人がキック投票するとその席は外されます。": (
        "A seat is removed when %(needed)s players vote to kick it."
    ),
    "%(n)s票": ("%(n)s vote", "%(n)s votes"),
    "キック投票する": "Vote to kick",
    "キック投票はゲーム開始前だけです。": "Kick votes are only before the game starts.",
    "村の画面へ": "To the village screen",
    "日ごとのログ": "Log by day",
    "すべて": "All",
    "村人": "Villager",
    "発言": "Say",
    "投票": "Votes",
    "%(day)s日目 投票結果（%(n)s回目）": "Day %(day)s, vote round %(n)s",
    "%(name)sさんが処刑されました": "%(name)s was executed",
    "廃村": "Abandoned",
    "過去ログ（全体のログ）": "Past log (the whole log)",
    "時間切れ": "Time is up",
    "仮想時間": "Virtual time",
    "残り %(left)s": "%(left)s left",
    "実時間": "Real time",
    "突然死まで": "Sudden death in",
    "参加 %(n)s / %(cap)s 人": "%(n)s / %(cap)s players",
    "あなたは【%(role)s】です。": "You are the 【%(role)s】.",
    "あなたは【%(sub)s】でもあります。": "You are also the 【%(sub)s】.",
    "%(name)sさん": "%(name)s",
    "参加者": "Players",
    "%(day)s日目の夜、%(name)sさんを占った結果は「%(res)s」でした。": (
        "Night %(day)s: you divined %(name)s — “%(res)s”."
    ),
    "%(day)s日目に処刑された%(name)sさんは「%(res)s」でした。": (
        "%(name)s, executed on day %(day)s, was “%(res)s”."
    ),
    "%(day)s日目の夜、%(name)sさんを護衛しました。": "Night %(day)s: you guarded %(name)s.",
    "生存中": "Alive",
    "投票済": "Voted",
    "霊話の入力": "Talk in heaven",
    "村の様子": "The village",
    "霊話": "Heaven talk",
    "発言と行動": "Talk and actions",
    "村人登録": "Take a seat",
    "あなたはすでにこの村にいます。": "You already have a seat in this village.",
    "村へ": "To the village",
    "村に入る": "Take the seat",
    "見物する": "Just watch",
    "霊界": "Heaven",
    "遺言を残しました。": "Your will is saved.",
    "霊界の仲間に話しかける": "Talk to the others in heaven",
    "夜の発言": "Talk at night",
    "発言する": "Say something",
    "発言の種類": "Kind of talk",
    "霊話する": "Talk in heaven",
    "開始に投票済み": "You voted to start",
    "ゲーム開始に投票": "Vote to start the game",
    "村を出る": "Leave the village",
    "投票済み": "You have voted",
    "今夜の行動は済んでいます": "Your action tonight is done",
    "全体のログを見る": "See the whole log",
    "見物中です。": "You are watching.",
    "この村に参加する（村人登録）": "Join this village (take a seat)",
    "ログインして参加する": "Log in to join",
    "状態": "Status",
    "村の名前": "Village name",
    "人数": "Players",
    "日": "Day",
    "%(d)s日目": "Day %(d)s",
    "村はありません。": "No villages.",
    "投票先": "Voted for",
    "%(n)d 件を処理しました。": "Done: %(n)d.",
    "選択した村を今すぐ終了する（廃村）": "End the selected villages now (abandon)",
    "選択した席をキックする（開始前のみ）": "Kick the selected seats (before the start only)",
    "キック票として数えられました。": "Counted as kick votes.",
    "本文": "Text",
    "選択した発言を非表示にする": "Hide the selected lines",
    "選択した発言を再表示する": "Show the selected lines again",
    "画像": "Image",
    "PNG, JPEG, GIF, WebP。": "PNG, JPEG, GIF or WebP.",
    "画像をアップロードするか、静的ファイルを指定してください。": (
        "Upload an image or give a static file."
    ),
    "出所": "Source",
    "アップロード": "Upload",
    "リクエストが正しくありません。": "The request is not valid.",
    "その操作は許されていません。": "That is not allowed.",
    "この村の住人ではありません。": "You have no seat in this village.",
    "この村は満員です。": "This village is full.",
    "その名前はこの村ですでに使われています。": "That name is already taken in this village.",
    "今はその操作ができません。": "You cannot do that now.",
    "死者にはその操作ができません。": "The dead cannot do that.",
    "あなたにはその能力がありません。": "You do not have that ability.",
    "その相手は選べません。": "You cannot choose that player.",
    "すでに投票済みです。": "You have already voted.",
    "今夜の行動はすでに決まっています。": "Tonight's action is already decided.",
    "異議ありはもう使えません。": "You have no objections left.",
    "発言が空です。": "There is nothing to say.",
    "発言が長すぎます。": "That is too long.",
    "人数が足りないため開始できません。": "Not enough players to start.",
    "{name}さんが村にやってきました。": "{name} came to the village.",
    "{name}さんが村を去りました。": "{name} left the village.",
    "{name}さんは村から追い出されました。": "{name} was kicked out of the village.",
    "全員がそろい、ゲームが始まりました。この村の配役は {cast} です。": (
        "Everyone is here and the game has begun. The cast: {cast}."
    ),
    "{day}日目の夜が訪れました。村人たちはそれぞれの家に戻ります。": (
        "Night {day} falls. The villagers go back to their homes."
    ),
    "{day}日目の朝が来ました。": "Morning of day {day}.",
    "{name}さんが変わり果てた姿で見つかりました。": "{name} was found dead.",
    "昨夜は誰も命を落としませんでした。": "Nobody died last night.",
    "{name}さんは恋人を失った悲しみに耐えられず、後を追いました。": (
        "{name} could not bear the loss of their lover and followed them."
    ),
    "投票の結果、{name}さんが処刑されました。": "By the vote, {name} was executed.",
    "処刑の騒ぎのさなか、{name}さんが毒に倒れました。": (
        "In the turmoil of the execution, {name} fell to the poison."
    ),
    "{name}さんは突然死しました。": "{name} died a sudden death.",
    "時間切れです。{grace}以内に投票しない人は突然死します。": (
        "Time is up. Whoever has not voted within {grace} dies a sudden death."
    ),
    "夜が明けようとしています。{grace}以内に行動しない人は突然死します。": (
        "Dawn is near. Whoever has not acted within {grace} dies a sudden death."
    ),
    "しばらく沈黙が続き、{hours}時間が過ぎました。": "Silence went on; {hours} h passed.",
    "静まりかえったまま、{hours}時間が過ぎました。": "All was still; {hours} h passed.",
    "票が割れたため、再投票です（{round}回目）。": "The vote is tied: vote again (round {round}).",
    "票が割れたため、再投票です（{round}回目）。次も同数なら引き分けになります。": (
        "The vote is tied: vote again (round {round}). Another tie ends the game in a draw."
    ),
    "{ties}回続けて票が割れたため、この村は引き分けとなりました。": (
        "The vote was tied {ties} times: the village ends in a draw."
    ),
    "突然死が出たため、投票はやり直しになります。": "Someone died a sudden death: vote again.",
    "サーバーが止まっていたため、猶予を今から{grace}取り直します。": (
        "The server was down: the grace of {grace} starts again now."
    ),
    "長いあいだ動きがなかったため、この村は廃村になりました。": (
        "Nothing happened for a long time: the village was abandoned."
    ),
    "管理者によりこの村は廃村になりました。": "The village was closed by the site's staff.",
    "{name}さん「異議あり！」": "{name}: “Objection!”",
    "人狼はすべて倒れました。村人の勝利です。": "All the werewolves are dead. The village wins.",
    "村は人狼に支配されました。人狼の勝利です。": (
        "The werewolves rule the village. The werewolves win."
    ),
    "騒ぎが収まったとき、妖狐が生き残っていました。妖狐の勝利です。": (
        "When the dust settled, the fox was still alive. The fox wins."
    ),
    "二人の愛は最後まで守られました。恋人の勝利です。": (
        "Their love survived to the end. The lovers win."
    ),
    "村には誰も残りませんでした。引き分けです。": "Nobody is left in the village. A draw.",
    "決着がつかないまま、この村は引き分けとなりました。": (
        "No decision could be reached: the village ends in a draw."
    ),
    "アオォーン・・・": "Awoooo...",
    "ヒソヒソ・・・": "Psst, psst...",
    "村の説明": "Comment",
    "定員": "Capacity",
    "リアルタイム制": "Real time",
    "昼（分）": "Day (min)",
    "夜（分）": "Night (min)",
    "キューピッド": "Cupid",
    "埋毒者": "Poison",
    "決定者": "Decider",
    "権力者": "Authority",
    "霊界で配役を公開しない": "Hide roles in heaven",
    "身代わり君": "Dummy boy",
    "リアルタイム制では昼と夜の分数を入れてください。": (
        "In real time, give the minutes of the day and the night."
    ),
    "ハンドル名": "Handle name",
    "アイコン": "Icon",
    "トリップ（任意）": "Trip (optional)",
    "合言葉から◆で始まる印が作られます。合言葉そのものは保存されません。": (
        "A mark starting with ◆ is made from this secret; the secret itself is not stored."
    ),
    "強く発言する": "Say it strongly",
    "通常どおり発言する": "Say it normally",
    "弱く発言する": "Say it softly",
    "遺言を残す": "Leave a will",
    "名前": "Name",
    "静的ファイル": "Static file",
    "並び順": "Order",
    "使用可": "Usable",
    "募集中": "Recruiting",
    "ゲーム中": "Playing",
    "終了": "Ended",
    "場面": "Phase",
    "勝者": "Winner",
    "開始": "Started",
    "席番号": "Seat number",
    "トリップ": "Trip",
    "キック済み": "Kicked",
    "兼任": "Sub-roles",
    "死因": "Cause of death",
    "遺言": "Will",
    "席": "Seat",
    "種類": "Kind",
    "非表示": "Hidden",
    "スラッグ": "Slug",
    "題名": "Title",
    "本文 (Markdown)": "Text (Markdown)",
    "見出し (#) と【…】だけの行から目次とアンカーが作られます。": (
        "Headings (#) and lines of a lone 【…】 make the table of contents and its anchors."
    ),
    "公開": "Published",
    "更新": "Updated",
    "情報ページ": "Information page",
    "ログインしてください。": "Please log in.",
    "見つかりません。": "Not found.",
    "すでにこの村に参加しています。": "You already have a seat in this village.",
    "操作が多すぎます。しばらく待ってからやり直してください。": (
        "Too many requests. Please wait a moment and try again."
    ),
    "募集中・ゲーム中の村が多すぎるため、今は村を作れません。": (
        "Too many villages are recruiting or playing; you cannot create one now."
    ),
    "混み合っています。もう一度お試しください。": "The site is busy. Please try again.",
    "占い師": "Seer",
    "霊能者": "Medium",
    "狩人": "Guard",
    "共有者": "Common",
    "人狼": "Werewolf",
    "狂人": "Madman",
    "狂信者": "Fanatic",
    "妖狐": "Fox",
    "恋人": "Lover",
    "村人陣営": "Village",
    "人狼陣営": "Werewolves",
    "妖狐陣営": "Fox",
    "恋人陣営": "Lovers",
    "村人の勝利": "The village wins",
    "人狼の勝利": "The werewolves win",
    "妖狐の勝利": "The fox wins",
    "恋人の勝利": "The lovers win",
    "引き分け": "Draw",
    "処刑": "executed",
    "襲撃": "attacked",
    "呪殺": "divined",
    "毒": "poisoned",
    "後追い": "followed a lover",
    "突然死": "sudden death",
    "開始前": "Before the game",
    "夜": "night",
    "昼": "day",
    "終了後": "After the game",
    "投票する": "Vote",
    "襲撃する": "Attack",
    "占う": "Divine",
    "護衛する": "Guard",
    "愛の矢を放つ": "Shoot the arrow of love",
    "人": "human",
    "狼": "wolf",
    "%(n)s時間": "%(n)s h",
    "%(n)s分": "%(n)s min",
    "%(day)s日目": "Day %(day)s",
    "リアルタイム制（昼%(day)s・夜%(night)s）": "Real time (day %(day)s, night %(night)s)",
    "%(name)s（人狼）": "%(name)s (werewolf)",
    "%(name)s（共有者）": "%(name)s (common)",
    "%(name)sの独り言": "%(name)s, to themself",
    "%(name)s（霊話）": "%(name)s (heaven)",
    "%(name)sの遺言": "Will of %(name)s",
    "狼の遠吠え": "A wolf's howl",
    "共有者の小声": "The commons whisper",
    "%(name)sさん「異議あり！」": "%(name)s: “Objection!”",
    "夜が明けました": "Dawn has come",
    "再投票になりました": "Vote again",
    "突然死まであと%(n)s秒": "%(n)s s to sudden death",
    "ゲームが終わりました": "The game is over",
    "%(day)s日目の%(phase)s": "Day %(day)s, %(phase)s",
    "仲間の人狼": "Your fellow werewolves",
    "もうひとりの共有者": "The other common",
    "恋人たち": "The lovers",
    "その人は村から追い出されました。": "That player was kicked out of the village.",
    "キック投票しました。": "Your kick vote is counted.",
    "ボット": "Bot",
    "練習村": "Practice village",
    "ボットで空席を埋める": "Fill the empty seats with bots",
    "ボットを": "Add",
    "人追加": "bot(s)",
    "練習村（ボットの席があります）": "Practice village (it has bot seats)",
    "表示": "Show",
    "通常の村": "Regular villages",
    "練習村（ボットあり）": "Practice villages (with bots)",
    "ボットの席": "Bot seats",
    "作成と同時にこの数の席をボットで埋めます（練習村）。": (
        "Fills this many seats with bots at once (a practice village)."
    ),
    "ボットの席は空席の数までです。": "There cannot be more bots than empty seats.",
    "練習村を含めた成績です。": "These figures include practice villages.",
    "練習村を除く": "Leave out practice villages",
    "練習村（ボットあり）の対戦は成績に含めていません。": (
        "Games in practice villages (with bots) are not counted here."
    ),
    "練習村を含める": "Count practice villages",
    "（練習村）": "(practice)",
    "%(date)sまで": "until %(date)s",
    "無期限": "with no end",
    "このアカウントは「%(kind)s」を停止されています（理由: %(reason)s、%(until)s）。": (
        "This account may not %(kind)s (reason: %(reason)s; %(until)s)."
    ),
    "村の作成": "create villages",
    "村への参加と投票・行動": "join, vote and act in villages",
    "理由": "Reason",
    "期限": "Until",
    "空欄は無期限": "Leave it empty for no end",
    "利用停止": "Ban",
    "接続が切れました。つなぎ直しています…": "The connection was lost. Reconnecting…",
    "この村から退出させられました。": "You were removed from this village.",
    "この村から退出させられました。この村にはもう参加できません。": (
        "You were removed from this village and may not join it again."
    ),
    "この村はもう参加者を募集していません。": "This village no longer takes players.",
    "システム用": "Reserved for the system",
    "このアカウントは利用停止中です。": "This account is banned.",
    "保存できませんでした。管理者に連絡してください。": (
        "It could not be saved. Please tell the site's staff."
    ),
    "%(time)sまで": "until %(time)s",
    "%(name)sさんに投票済み": "Voted for %(name)s",
    "（%(name)sさんの選択）": "(%(name)s's choice)",
    "サーバーでエラーが起きました。時間をおいてやり直してください。": (
        "Something went wrong on the server. Please try again in a while."
    ),
    "サーバーエラー": "Server error",
    "混み合っています": "Busy",
    "混み合っています。少し待ってからやり直してください。": (
        "The site is busy. Please wait a moment and try again."
    ),
    "再送への応答": "Answers to retried requests",
    "◆ などトリップに見える記号は名前に使えません。": (
        "A name may not contain ◆ or any mark that looks like a trip."
    ),
    "Idempotency-Key は100文字までの英数字・記号で指定してください。": (
        "Idempotency-Key must be 1 to 100 printable ASCII characters."
    ),
}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def fill(path: str) -> list[str]:
    """Write the table into the .po at `path`; returns the msgids it has no English for."""
    import re
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    missing = []
    out = [blocks[0].replace("#, fuzzy\n", "", 1)]
    for block in blocks[1:]:
        lines = block.split("\n")
        comments = [ln for ln in lines if ln.startswith("#") and not ln.startswith("#, fuzzy")]
        body = [ln for ln in lines if not ln.startswith("#")]
        joined = "\n".join(body)
        head_part = joined.split("msgid_plural")[0].split("msgstr")[0]
        pieces = re.findall(r'^(?:msgid |)("(?:[^"\\]|\\.)*")$', head_part, re.M)
        msgid = "".join(eval(piece) for piece in pieces)
        plural = "msgid_plural" in joined
        english = EN.get(msgid)
        if english is None:
            missing.append(msgid)
            out.append(block)
            continue
        head = joined.split("\nmsgstr")[0]
        if plural:
            one, many = english if isinstance(english, tuple) else (english, english)
            tail = f"msgstr[0] {_quote(one)}\nmsgstr[1] {_quote(many)}"
        else:
            tail = f"msgstr {_quote(english if isinstance(english, str) else english[0])}"
        out.append("\n".join([*comments, head, tail]))
    Path(path).write_text("\n\n".join(out), encoding="utf-8")
    return missing


if __name__ == "__main__":
    from pathlib import Path

    po = Path(__file__).resolve().parent / "en" / "LC_MESSAGES" / "django.po"
    left = fill(str(po))
    print(f"{len(left)} msgids without English" + (": " + repr(left) if left else ""))

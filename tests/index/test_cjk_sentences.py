"""Chinese text read sentence by sentence, under the headings it is set under: a sentence ends at 。！？ with no
space after it, and a thesis's chapters, sections and back matter give its sentences their roles."""

from __future__ import annotations

from agent_zot.index.chunk_sentences import ChunkSentences
from agent_zot.index.sentences import is_stub, sentence_spans


def test_a_chinese_sentence_ends_at_its_full_stop_and_keeps_its_closing_quote() -> None:
    text = "机器人以每秒 2 到 4 圈的速度自转。装甲板轮流出现在“敌人的视野中。”每块装甲板出现的时间很短！通常只有不到 150 毫秒。"
    sentences = [text[a:b] for a, b in sentence_spans(text)]
    assert sentences == [
        "机器人以每秒 2 到 4 圈的速度自转。",
        "装甲板轮流出现在“敌人的视野中。”",
        "每块装甲板出现的时间很短！",
        "通常只有不到 150 毫秒。",
    ]
    assert not any(is_stub(sentence) for sentence in sentences)  # short, but each ends as a sentence does


def test_a_thesis_chunk_gives_each_sentence_the_role_of_its_chapter_and_leaves_the_references_out() -> None:
    text = "\n".join(
        [
            "第 4 章 机器人运动学建模与状态观测",
            "4.1 本章简述",
            "在上一章，通过 PNP 进行三维重建。本章建立目标机器人的运动学模型。",
            "第 5 章 实验结果与分析",
            "系统的命中率达到百分之八十。",
            "参考文献",
            "[1] 王剑平. 自动瞄准系统研究[J]. 价值工程, 2019, 3(2): 1-9.",
        ]
    )
    chunk = ChunkSentences({"text": text, "section": "Abstract", "section_kind": "abstract"})
    by_sentence = dict(zip(chunk.sentences(), zip(chunk.kinds, chunk.sections, strict=True), strict=True))
    assert by_sentence["本章建立目标机器人的运动学模型。"] == (
        "methods",
        ("4.1 本章简述", "第 4 章 机器人运动学建模与状态观测"),
    )
    assert by_sentence["系统的命中率达到百分之八十。"][0] == "results"
    entry = next(sentence for sentence in chunk.sentences() if sentence.startswith("[1]"))
    assert by_sentence[entry][0] == "references"
    # the headings are no passage's words
    assert {chunk.sentences()[i] for i in chunk.headings} >= {
        "第 4 章 机器人运动学建模与状态观测",
        "4.1 本章简述",
        "参考文献",
    }


def test_a_figures_caption_on_its_own_line_names_no_section() -> None:
    text = "\n".join(
        [
            "5.2.3 发射延迟的量测",
            "本文通过微动开关获取弹丸发射时的时间。",
            "图 5.4 微动开关",
            "第 5 章 机器人目标的精准打击",  # the chapter's running header atop the next page
            "与发射命令的时间做差值，即可获得发射延迟。",
        ]
    )
    chunk = ChunkSentences({"text": text, "section": "5.2.3 发射延迟的量测"})
    last = chunk.sentences().index("与发射命令的时间做差值，即可获得发射延迟。")
    assert chunk.sections[last][0] == "5.2.3 发射延迟的量测"

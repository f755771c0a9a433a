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


def test_a_chinese_caption_on_its_own_line_is_a_caption_not_part_of_the_next_sentence() -> None:
    """A Chinese caption line has no 。: it was read into the sentence after it ("图 4.1 静态目标击打 机器人辅助
    瞄准系统的本原理是…"), so passages carried figure titles and English captions glued to the body."""
    text = "\n".join(
        [
            "无法击打动态目标，原因如下。",
            "图 4.1 静态目标击打与动态目标击打",
            "机器人辅助瞄准系统的原理是对目标进行定位。",
            "五连杆参数定义如图 4 所示。",
            "4 平面五连杆模型及其参数",  # a journal's Chinese title without its 图, over the English one
            "Fig．4 Planar five-link model and its parameters",
            "根据图 4 可得腿长。",
            "表 2-6 OpenCV 标定结果",
            "图 3 为系统框图。",  # the body speaking of a figure
        ]
    )
    chunk = ChunkSentences({"text": text, "section": "4.1 本章简述", "section_kind": "methods"})
    kinds = dict(zip(chunk.sentences(), chunk.kinds, strict=True))
    assert kinds["图 4.1 静态目标击打与动态目标击打"] == "caption"
    assert kinds["4 平面五连杆模型及其参数\nFig．4 Planar five-link model and its parameters"] == "caption"
    assert kinds["表 2-6 OpenCV 标定结果"] == "caption"
    for body in ("机器人辅助瞄准系统的原理是对目标进行定位。", "根据图 4 可得腿长。", "图 3 为系统框图。"):
        assert kinds[body] == "methods"

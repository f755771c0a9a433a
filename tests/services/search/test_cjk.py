"""Libraries in Chinese or Japanese: the keyword channel reads such titles by character pairs, an English-only
embedding model is left out of such queries, and `doctor` says when a multilingual model would help."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.text import spaced_cjk
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database

TITLES = [
    "基于深度学习的图像识别方法研究",
    "深度学习在医学图像分割中的应用",
    "图像识别中的注意力机制综述",
    "面向自然语言处理的预训练模型研究",
    "基于图神经网络的推荐系统",
    "强化学习在机器人控制中的应用",
    "医学图像的弱监督学习方法",
    "知识图谱构建与推理技术综述",
]


def test_chinese_runs_are_indexed_whole_and_by_character_pairs() -> None:
    assert spaced_cjk("深度学习") == " 深度学习 深度 度学 学习 "
    assert spaced_cjk("BERT 模型 works") == "BERT  模型 模型  works"
    assert spaced_cjk("plain English stays") == "plain English stays"


@pytest.fixture(scope="module")
def chinese_library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("cjk")
    builder = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=7)
    for n, title in enumerate(TITLES):
        builder.add_item(
            "journalArticle", title=title, date=f"20{10 + n}-00-00 20{10 + n}", creators=[("伟", "张")]
        )
    db = guard_database(builder.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    ctx = AppContext(settings, home=root / "home")
    try:
        update_index(ctx.library(), ctx.index_resources(), UpdateOptions(fulltext=False))
    finally:
        ctx.close()
    return settings


@pytest.mark.slow
async def test_a_chinese_title_finds_its_paper_first(chinese_library: Settings, tmp_path: Path) -> None:
    ctx = AppContext(chinese_library, home=tmp_path)
    async with Client(build_server(ctx)) as client:
        for title in TITLES:
            result = await client.call_tool("zot_search", {"query": title, "limit": 10})
            assert result.structured_content["papers"][0]["title"] == title
        # a word inside the titles, not a whole title: both papers that contain it come first
        part = await client.call_tool("zot_search", {"query": "图像识别", "limit": 3})
        top = {p["title"] for p in part.structured_content["papers"][:2]}
        assert top == {TITLES[0], TITLES[2]}
    ctx.close()


@pytest.mark.slow
def test_doctor_suggests_a_multilingual_model_for_a_chinese_library(
    chinese_library: Settings, tmp_path: Path
) -> None:
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state")}
    result = CliRunner().invoke(cli, ["--library", str(chinese_library.zotero_data_dir), "doctor"], env=env)
    assert (
        "100% of titles are in Chinese or Japanese" in result.output
        and 'embedder = "bge-m3"' in result.output
    )

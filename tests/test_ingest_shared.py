"""Readers on the real files of the shared data home."""

import pytest

from ingest.corpora import read_corpus, read_newsgroups
from ingest.datasets import load_movies

pytestmark = pytest.mark.data


@pytest.mark.parametrize(
    "name, objects, relations, classes",
    [
        ("zoo", 101, 738, 7),
        ("soybean-small", 47, 1645, 4),
        ("soybean-large", 307, 10033, 19),
        ("house-votes-84", 435, 6568, 2),
        ("classic3", 3891, 227366, 3),
    ],
)
def test_benchmark_sets(shared_data, name, objects, relations, classes):
    rel = read_corpus(name, shared_data)
    assert rel.matrix.shape[0] == objects and rel.n_relations == relations
    assert len(set(rel.labels)) == classes and len(rel.labels) == objects


def test_multi5_from_20news_19997(shared_data):
    rel = read_corpus("multi5", shared_data)
    assert rel.matrix.shape[0] == 5000 and sorted(set(rel.labels))[0] == "comp.graphics"
    assert 400_000 < rel.n_relations < 700_000  # paper: 539,933 (its tokenizer is not given)


def test_bydate_split_reads_train_and_test(shared_data):
    rel = read_newsgroups(["sci.space"], path=shared_data / "20newsgroups" / "20news-bydate.tar.gz")
    assert rel.matrix.shape[0] == 987  # 593 train + 394 test
    assert {o.split("/")[0] for o in rel.objects} == {"20news-bydate-train", "20news-bydate-test"}


def test_ml_latest_small_genres(shared_data):
    data = load_movies("ml-latest-small", "all", shared_data, kinds=("genre",))
    s = data.relations().summary()
    assert s["users"] == 610 and s["movie_relations"] == 100_836 and s["attributes_by_kind"]["genre"] == 19


def test_ml_latest_small_people_need_imdb_dumps(shared_data):
    with pytest.raises(FileNotFoundError, match="recsys fetch imdb"):
        load_movies("ml-latest-small", "all", shared_data, kinds=("genre", "director"))


def test_ml100k_people_come_only_from_entries_that_are_the_movie(shared_data):
    data = load_movies("ml-100k", "u1", shared_data)
    attrs = data.attributes
    people = attrs[attrs["kind"].isin(["director", "writer", "cast"])]
    assert not people["value"].str.strip().str.lower().isin(["nan", "", "none"]).any()
    jedi = people[people["item"] == 181]  # Return of the Jedi: the details file links a video game
    assert set(jedi.loc[jedi["kind"] == "director", "value"]) <= {"Richard Marquand"}
    assert "Peter Ross-Murray" not in set(people["value"]) and "Don DuPree" not in set(people["value"])
    assert set(attrs.loc[attrs["item"] == 181, "kind"]) >= {"genre"}  # a refused link keeps the genres
    assert sum(data.links.rejected.values()) > 100 and data.links.n_linked > 1400

"""The product behind cornac's ``Recommender``: fitted on a cornac train set and run by cornac's own
``Experiment``, its scores are the model's list scores, a user's rated items last."""

import numpy as np
import pytest
from kit import FAST, taste_data

from experiments.common import working_directory

cornac = pytest.importorskip("cornac")

from recsys.cornac_recommender import CoClusterRecommender  # noqa: E402
from recsys.model.listing import list_score_rows  # noqa: E402


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    train, test, attrs, items = taste_data()
    triples = [list(f[["user", "item", "rating"]].itertuples(index=False, name=None)) for f in (train, test)]
    method = cornac.eval_methods.BaseMethod.from_splits(*triples, rating_threshold=4.0, exclude_unknowns=True, seed=0)
    ours = CoClusterRecommender(item_attributes=attrs, items=items, like_params=FAST, dislike_params=FAST, item_l2=50.0)
    popular = cornac.models.MostPop()
    run = cornac.Experiment(method, [ours, popular], [cornac.metrics.NDCG(k=10)], verbose=False)
    with working_directory(tmp_path_factory.mktemp("cornac")):  # cornac writes its log there
        run.run()
    return method, ours, {r.model_name: r.metric_avg_results["NDCG@10"] for r in run.result}


def test_cornac_runs_the_product_and_its_scores_are_the_list_scores(experiment):
    method, ours, ndcg = experiment
    assert ndcg["HBLCoClust"] > ndcg["MostPop"]  # two tastes: the lists find them, popularity cannot
    fp, train = ours.model_.profiles_, method.train_set
    for cornac_user in range(0, train.num_users, 7):
        raw = train.user_ids[cornac_user]
        u = int(fp.user_index([raw])[0])
        want = list_score_rows(ours.model_, [(fp.ratings.row(u), fp.ratings.row_values(u))])[0]
        got = ours.score(cornac_user)
        cols = fp.item_index(list(train.item_ids))
        listed = np.isfinite(want[cols])
        assert np.array_equal(got[listed], want[cols][listed])
        assert (got[~listed] < got[listed].min()).all()  # rated (and unlisted) items below every listed one
        rated = np.isin(cols, fp.ratings.row(u))
        assert not listed[rated].any()


def test_an_unknown_user_is_cornacs_score_exception(experiment):
    from cornac.exception import ScoreException

    _, ours, _ = experiment
    with pytest.raises(ScoreException):
        ours.score(10_000)

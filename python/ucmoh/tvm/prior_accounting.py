"""The tuning study's accounting (tools/tvm_network_study.py) for a cost model
that wraps the pulled registry model (`self.prior`, a ucmoh.tvm.CostModel)
and learns the session with something of its own: the search's scoring and
the conversions are the prior's, and the model's own seconds are its
`update_seconds`. One definition for ModelChoice, ModelBlend and TokenBoost,
so their rows count alike."""


class PriorAccounting:
    """A mixin: the class sets `self.prior` and defines `update_seconds`."""

    @property
    def predict_seconds(self):
        return self.prior.predict_seconds

    @property
    def seconds(self):
        return self.prior.seconds + self.update_seconds

    @property
    def converted(self):
        return self.prior.converted

    @property
    def predicted(self):
        return self.prior.predicted

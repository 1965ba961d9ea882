"""Writes `masking.npz`: what Keras 3.15 computes when `Embedding(mask_zero=True)` masks the
padding steps of the layers after it. NOT run by the test suite, and not project code: it
needs real TensorFlow 2.21 with Keras 3.15. Run once, from this folder:

    /tmp/tfenv/bin/python make_keras_mask_fixtures.py

Two models on the same padded ids (0 is padding, leading, inner and trailing), each with
weights from a seeded numpy generator, saved with the outputs:
- `sequence`: Embedding(mask_zero) -> LSTM(return_sequences) -> GlobalAveragePooling1D ->
  Dense, a Sequential (the ragged guide's model, smaller);
- `functional`: Embedding(mask_zero) -> GRU (last output) and SimpleRNN(return_sequences)
  -> GlobalAveragePooling1D, joined by Concatenate after the pooling, then Dense.
Also the first model's 2-epoch `fit` losses (binary cross-entropy from logits, SGD).
"""

import keras
import numpy as np

layers = keras.layers
IDS = np.array([[3, 5, 0, 0, 0], [0, 0, 2, 7, 1], [4, 0, 6, 0, 9], [1, 2, 3, 4, 5]],
               np.int32)


def sequence_model():
    return keras.Sequential([keras.Input((5,), dtype="int32"),
                             layers.Embedding(10, 4, mask_zero=True),
                             layers.LSTM(3, return_sequences=True),
                             layers.GlobalAveragePooling1D(),
                             layers.Dense(1)])


def functional_model():
    ids = keras.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 4, mask_zero=True)(ids)
    last = layers.GRU(3)(embedded)
    pooled = layers.GlobalAveragePooling1D()(layers.SimpleRNN(2, return_sequences=True)(
        embedded))
    return keras.Model(ids, layers.Dense(2)(layers.Concatenate()([last, pooled])))


def main():
    rng = np.random.default_rng(31)
    out = {"ids": IDS}
    for name, make in (("sequence", sequence_model), ("functional", functional_model)):
        model = make()
        weights = [rng.normal(0, 0.5, size=w.shape).astype(np.float32)
                   for w in model.get_weights()]
        model.set_weights(weights)
        out.update({"%s__initial_%d" % (name, i): w for i, w in enumerate(weights)})
        out[name + "__outputs"] = model.predict(IDS, verbose=0)
    model = sequence_model()
    model.set_weights([out["sequence__initial_%d" % i] for i in range(len(model.weights))])
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True))
    labels = np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)
    out["sequence__labels"] = labels
    out["sequence__losses"] = np.array(model.fit(IDS, labels, batch_size=2, epochs=2,
                                                 shuffle=False, verbose=0).history["loss"])
    np.savez("masking.npz", **out)


if __name__ == "__main__":
    main()

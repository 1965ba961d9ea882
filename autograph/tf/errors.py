"""`tf.errors`: exception classes."""

from runtime import errors as _errors

OpError = _errors.OpError
InvalidArgumentError = _errors.InvalidArgumentError
FailedPreconditionError = _errors.FailedPreconditionError
OperatorNotAllowedInGraphError = _errors.OperatorNotAllowedInGraphError
InaccessibleTensorError = _errors.InaccessibleTensorError
UndefinedValueError = _errors.UndefinedValueError
OutOfRangeError = _errors.OutOfRangeError
NotFoundError = _errors.NotFoundError
DataLossError = _errors.DataLossError

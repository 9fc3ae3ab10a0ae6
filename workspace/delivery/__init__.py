"""Delivery: what the product sends out of the instance (docs/delivery.md). For now
mail: ``mail.send_mail`` over the instance's SMTP settings, or into the outbox when
none are set."""

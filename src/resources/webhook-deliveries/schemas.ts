import Type from 'typebox';
import { Uuid } from '../../records/common.js';

export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid }, { additionalProperties: false });

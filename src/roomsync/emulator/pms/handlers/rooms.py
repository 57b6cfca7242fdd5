"""Rooms (document 02): the short list and the extended one."""

from __future__ import annotations

from roomsync.core.api.pms import rooms as api
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import pms
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call, handles


def _titles(room_type: records.RoomType) -> list[api.RoomTypeTitle]:
    return [api.RoomTypeTitle(language_code=t.language_code, title=t.title) for t in room_type.titles]


def _group(state: PmsState, room: records.Room) -> api.RoomGroup | None:
    group = state.room_groups.get(room.room_group_id) if room.room_group_id is not None else None
    return api.RoomGroup(id=group.id, title=group.title) if group else None


@handles("list_rooms")
def list_rooms(call: Call) -> api.RoomList:
    state = pms(call)
    rooms = []
    for room in state.sorted_rooms():
        room_type = state.room_type(room.room_type_id)
        rooms.append(
            api.Room(
                id=room.id,
                title=room.title,
                room_type=api.RoomType(id=room_type.id, titles=_titles(room_type)),
                room_group=_group(state, room),
            )
        )
    return api.RoomList(root=rooms)


@handles("list_rooms_extended")
def list_rooms_extended(call: Call) -> api.RoomExtendedList:
    state = pms(call)
    rooms = []
    for room in state.sorted_rooms():
        room_type = state.room_type(room.room_type_id)
        rooms.append(
            api.RoomExtended(
                id=room.id,
                title=room.title,
                room_type=api.ExtendedRoomType(id=room_type.id, titles=_titles(room_type)),
                room_group=_group(state, room),
                clean_status=room.clean_status,
                is_enabled=room.is_enabled,
                num_adults_base=room.num_adults_base,
                num_adults_max=room.num_adults_max,
                priority=room.priority,
            )
        )
    return api.RoomExtendedList(root=rooms)
